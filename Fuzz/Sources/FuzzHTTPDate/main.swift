import FuzzSupport

runLibFuzzer(fuzzHTTPDate)
