import FuzzSupport

runLibFuzzer(fuzzResponseHead)
