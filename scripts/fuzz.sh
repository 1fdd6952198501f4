#!/usr/bin/env bash
# Builds and runs one libFuzzer target of the Fuzz/ package (release, -sanitize=fuzzer,address,
# -enable-testing for its @testable imports) for SECONDS, on its committed seed corpus.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
#   TARGET: request | form | multipart | response-head | redirect | cache-control | http-date | cache-entry | journal
#
# New inputs libFuzzer finds go to Fuzz/.build-fuzz/corpus/TARGET (the seeds in
# Fuzz/Corpus/TARGET are only read); a crash is saved as Fuzz/.build-fuzz/artifacts/TARGET/crash-…
# and ends the run with a non-zero status. The run is niced: the machine has 2 cores.
# Replay one input: Fuzz/.build-fuzz/release/FuzzRequest FILE
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
target=$1 seconds=$2
shift 2
case "$target" in
    request) product=FuzzRequest ;;
    form) product=FuzzForm ;;
    multipart) product=FuzzMultipart ;;
    response-head) product=FuzzResponseHead ;;
    redirect) product=FuzzRedirect ;;
    cache-control) product=FuzzCacheControl ;;
    http-date) product=FuzzHTTPDate ;;
    cache-entry) product=FuzzCacheEntry ;;
    journal) product=FuzzJournal ;;
    *) echo "unknown target $target (request, form, multipart, response-head, redirect, cache-control, http-date, cache-entry, journal)" >&2; exit 2 ;;
esac
scratch=Fuzz/.build-fuzz
nice -n 10 swift build -c release --package-path Fuzz --scratch-path "$scratch" --product "$product" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing
corpus=$scratch/corpus/$target artifacts=$scratch/artifacts/$target
mkdir -p "$corpus" "$artifacts"
# ASan's leak check stays off: libFuzzer would report the process-lifetime transports and
# loopback peers of the transfer targets; the leak soak covers leaks.
# The Swift runtime's backtracer stays off so that libFuzzer itself catches an abort and saves the input.
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} nice -n 10 "$scratch/release/$product" \
    -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$@" "$corpus" "Fuzz/Corpus/$target"
