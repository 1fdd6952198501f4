#!/usr/bin/env bash
# Leak soak: a mixed workload — the three styles, HTTP/1.1 and HTTP/2 over TLS and plaintext
# HTTP/1.1, one request in ten a fault (stall with a 150 ms idle timeout, close mid-body, a 503
# retried twice, a cancel 2–20 ms in) — against the embedded server, in two runs of
# CurlBridgeStorm:
#   1. built with AddressSanitizer, N requests (default 10,000): LeakSanitizer must report no
#      leak at exit. First a short run that leaks 4096 bytes on purpose must be reported, else a
#      clean run proves nothing. Descriptors, threads and curl handles must come back to the
#      baseline (resident memory is not judged here: ASan's quarantine keeps freed blocks).
#   2. the plain debug build, again N requests (RSS_REQUESTS to change): resident memory, sampled
#      every 500 requests after malloc_trim(0), must drift less than 5% over the second half (the
#      mean of its last half against the mean of its first half), counts back to the baseline.
#
#   scripts/soak.sh [N] [extra CurlBridgeStorm options, e.g. --seed 42]
#   VALGRIND=1 scripts/soak.sh 2000     run 1 under valgrind memcheck instead of ASan: slower
set -euo pipefail
cd "$(dirname "$0")/.."

requests=${1:-10000}
shift || true
rss_requests=${RSS_REQUESTS:-$requests}
scripts/ensure-system-packages.sh
logs=$(mktemp -d "${TMPDIR:-/tmp}/curlbridge-soak.XXXXXX")
swift build --enable-all-traits --product CurlBridgeStorm
plain="$(swift build --enable-all-traits --show-bin-path)/CurlBridgeStorm"

if [ "${VALGRIND:-0}" = 1 ]; then
    check() { valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=97 "$plain" "$@"; }
else
    scratch=.build/asan
    # (its linker warns about every ASan symbol it cannot export: kept out of the way, in the log)
    swift build --enable-all-traits --sanitize=address --scratch-path "$scratch" --product CurlBridgeStorm > "$logs/asan-build.log" 2>&1 \
        || { tail -30 "$logs/asan-build.log" >&2; exit 1; }
    sanitized="$(swift build --enable-all-traits --sanitize=address --scratch-path "$scratch" --show-bin-path)/CurlBridgeStorm"
    export ASAN_OPTIONS=detect_leaks=1:exitcode=97
    check() { "$sanitized" "$@"; }
fi

# 1. The leak checker must see a deliberate leak, then none in the soak.
status=0
check soak --requests 200 --ignore-rss --leak-on-purpose > "$logs/deliberate.log" 2>&1 || status=$?
if [ "$status" -ne 97 ] || ! grep -Eq "4096 byte|4,096 bytes in 1 blocks are definitely lost" "$logs/deliberate.log"; then
    echo "the leak checker did not report the deliberate leak (status $status); see $logs/deliberate.log" >&2
    exit 1
fi
echo "deliberate leak of 4096 bytes reported (status $status)"
started=$(date +%s)
leak_status=0
check soak --requests "$requests" --ignore-rss "$@" > "$logs/leaks.log" 2>&1 || leak_status=$?
grep -E "^soak requests" "$logs/leaks.log" || true
grep -E "SUMMARY: AddressSanitizer|definitely lost|ERROR SUMMARY" "$logs/leaks.log" || echo "no leak reported"
echo "leak run: exit status $leak_status after $(( $(date +%s) - started )) s; log: $logs/leaks.log"

# 2. Resident memory and counts, without a sanitizer.
started=$(date +%s)
rss_status=0
"$plain" soak --requests "$rss_requests" "$@" > "$logs/rss.log" 2>&1 || rss_status=$?
grep -E "^soak (rss|requests)" "$logs/rss.log" || true
echo "rss run: exit status $rss_status after $(( $(date +%s) - started )) s; log: $logs/rss.log"
[ "$leak_status" -eq 0 ] && [ "$rss_status" -eq 0 ]
