import FuzzSupport

runLibFuzzer(fuzzRequest)
