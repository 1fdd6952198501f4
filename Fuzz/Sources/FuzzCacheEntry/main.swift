import FuzzSupport

runLibFuzzer(fuzzCacheEntry)
