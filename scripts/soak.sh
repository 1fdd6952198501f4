#!/usr/bin/env bash
# Leak soak: a mixed workload of N requests (default 10,000) — the three styles, HTTP/1.1 and
# HTTP/2 over TLS and plaintext HTTP/1.1, one request in ten a fault (stall with a 150 ms idle
# timeout, close mid-body, a 503 retried twice, a cancel 2–20 ms in) — in CurlBridgeStorm built
# with AddressSanitizer, whose LeakSanitizer reports every block definitely lost at exit. First a
# short run that leaks 4096 bytes on purpose must be reported (else a clean run proves nothing);
# then the real run must report no leak, descriptors, threads and curl handles back to the
# baseline, and resident memory drifting less than 5% over the second half (sampled every 500).
#
#   scripts/soak.sh [N] [extra CurlBridgeStorm options, e.g. --seed 42]
#   VALGRIND=1 scripts/soak.sh 2000     under valgrind memcheck (debug build) instead: slower
set -euo pipefail
cd "$(dirname "$0")/.."

requests=${1:-10000}
shift || true
scripts/ensure-system-packages.sh
logs=$(mktemp -d "${TMPDIR:-/tmp}/curlbridge-soak.XXXXXX")

if [ "${VALGRIND:-0}" = 1 ]; then
    swift build --product CurlBridgeStorm
    storm="$(swift build --show-bin-path)/CurlBridgeStorm"
    check() { valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=97 "$storm" "$@"; }
else
    scratch=.build/asan
    swift build --sanitize=address --scratch-path "$scratch" --product CurlBridgeStorm
    storm="$(swift build --sanitize=address --scratch-path "$scratch" --show-bin-path)/CurlBridgeStorm"
    export ASAN_OPTIONS=detect_leaks=1:exitcode=97
    check() { "$storm" "$@"; }
fi

# The leak checker must see a deliberate leak.
status=0
check soak --requests 200 --leak-on-purpose > "$logs/deliberate.log" 2>&1 || status=$?
if [ "$status" -ne 97 ] || ! grep -Eq "4096 byte|4,096 bytes in 1 blocks are definitely lost" "$logs/deliberate.log"; then
    echo "the leak checker did not report the deliberate leak (status $status); see $logs/deliberate.log" >&2
    exit 1
fi
echo "deliberate leak of 4096 bytes reported (status $status)"

started=$(date +%s)
status=0
check soak --requests "$requests" "$@" > "$logs/soak.log" 2>&1 || status=$?
grep -E "^soak " "$logs/soak.log" | grep -v "^soak outcome" || true
grep -E "SUMMARY: AddressSanitizer|definitely lost|ERROR SUMMARY" "$logs/soak.log" || echo "no leak reported"
echo "soak exit status $status after $(( $(date +%s) - started )) s; full log: $logs/soak.log"
[ "$status" -eq 0 ]
