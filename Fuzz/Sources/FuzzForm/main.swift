import FuzzSupport

runLibFuzzer(fuzzForm)
