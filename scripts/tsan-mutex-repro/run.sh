#!/usr/bin/env bash
# Shows that ThreadSanitizer on this toolchain does not see Synchronization.Mutex's ordering on
# Linux, that CurlBridge's PosixLock has none of those reports, and what each lock costs.
#   scripts/tsan-mutex-repro/run.sh    # repro under TSan, then the microbenchmark (-O): wall clock,
#                                      # and instructions per operation when valgrind is installed
set -uo pipefail
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
lock=../../Sources/CurlBridge/Core/Support/PosixLock.swift

swiftc -sanitize=thread -g mutex/main.swift -o "$out/mutex"
swiftc -sanitize=thread -g posix/main.swift "$lock" -module-name PosixRepro -o "$out/posix"
"$out/mutex" >"$out/mutex.log" 2>&1; mutex_status=$?
"$out/posix" >"$out/posix.log" 2>&1; posix_status=$?
echo "Mutex:     exit $mutex_status, $(grep -c 'WARNING: ThreadSanitizer' "$out/mutex.log") ThreadSanitizer reports"
grep -m1 -A3 'WARNING: ThreadSanitizer' "$out/mutex.log" | sed 's/^/    /'
echo "PosixLock: exit $posix_status, $(grep -c 'WARNING: ThreadSanitizer' "$out/posix.log") ThreadSanitizer reports"

swiftc -O -wmo bench/main.swift "$lock" -module-name LockBench -o "$out/bench"
"$out/bench"
if command -v valgrind >/dev/null; then
    # Instructions per operation, which a loaded machine does not blur: (I(300k) - I(100k)) / 200k.
    for lock_type in mutex posix; do
        counts=()
        for rounds in 100000 300000; do
            counts+=("$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$out/bench" "$lock_type" "$rounds" 2>&1 |
                sed -n 's/.*Collected : \([0-9]*\).*/\1/p')")
        done
        echo "$lock_type: $(( (counts[1] - counts[0]) / 200000 )) instructions per inbox operation (callgrind)"
    done
fi
[ "$posix_status" -eq 0 ] && [ "$mutex_status" -ne 0 ]
