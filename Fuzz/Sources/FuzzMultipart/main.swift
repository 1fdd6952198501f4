import FuzzSupport

runLibFuzzer(fuzzMultipart)
