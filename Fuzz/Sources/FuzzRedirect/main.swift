import FuzzSupport

runLibFuzzer(fuzzRedirect)
