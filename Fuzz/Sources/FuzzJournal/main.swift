import FuzzSupport

runLibFuzzer(fuzzJournal)
