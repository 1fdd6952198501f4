import FuzzSupport

runLibFuzzer(fuzzCacheControl)
