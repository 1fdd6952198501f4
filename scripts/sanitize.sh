#!/usr/bin/env bash
# The whole test suite under ThreadSanitizer and/or AddressSanitizer, each in a build directory
# of its own (.build-tsan, .build-asan) so the normal .build is untouched. Every process the
# tests start (the CurlBridgeProbe child) is built and run with the same sanitizer, and the
# reports of all of them are collected; any report fails the pass.
#
#   scripts/sanitize.sh [thread|address|all]     (default: all)
#   extra arguments go to `swift test`, e.g. --filter TransportTests
#
# Prints, per pass, the build time, the test time, the test summary and the report count.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
[ $# -gt 0 ] && shift
case "$mode" in
    thread) passes=(thread) ;;
    address) passes=(address) ;;
    all) passes=(thread address) ;;
    *) echo "usage: scripts/sanitize.sh [thread|address|all] [swift test arguments]" >&2; exit 2 ;;
esac
scripts/ensure-system-packages.sh >/dev/null
. scripts/test-settings.sh

failed=0
for sanitizer in "${passes[@]}"; do
    case "$sanitizer" in
        thread) scratch=.build-tsan prefix=tsan options_var=TSAN_OPTIONS options="halt_on_error=0 second_deadlock_stack=1" ;;
        address) scratch=.build-asan prefix=asan options_var=ASAN_OPTIONS options="halt_on_error=0 detect_leaks=0 detect_stack_use_after_return=1 suppressions=$PWD/scripts/asan-suppressions.txt" ;;
    esac
    reports=$(mktemp -d)
    log=$reports/test.log
    start=$(date +%s)
    if ! swift build --enable-all-traits --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" >"$reports/build.log" 2>&1; then
        tail -40 "$reports/build.log"
        echo "$sanitizer: the build failed" >&2
        failed=1
        continue
    fi
    built=$(date +%s)
    # log_path: every sanitized process (the test runner and each probe child) writes its reports
    # to $reports/$prefix.<pid>, so a child's reports are counted even though its stderr is not kept.
    env "$options_var=$options log_path=$reports/$prefix" \
        swift test --enable-all-traits --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "$@" >"$log" 2>&1
    status=$?
    finished=$(date +%s)
    # TSan starts a report with "WARNING: ThreadSanitizer:", ASan with "==<pid>==ERROR: AddressSanitizer:".
    count=$(cat "$reports/$prefix".* 2>/dev/null | grep -c -E "^(==[0-9]+==)?(WARNING|ERROR): (ThreadSanitizer|AddressSanitizer)")
    summary=$(grep -E "Test run with .* (passed|failed)|tests? (passed|failed)" "$log" | tail -2)
    echo "== $sanitizer: build $((built - start)) s, tests $((finished - built)) s, exit $status, $count sanitizer reports"
    echo "$summary"
    if [ "$count" -gt 0 ]; then
        for file in "$reports/$prefix".*; do
            echo "--- $file"
            head -60 "$file"
        done
    fi
    if [ "$status" -ne 0 ]; then
        grep -E "✘|error:|failed" "$log" | head -40
    fi
    if [ "$status" -ne 0 ] || [ "$count" -gt 0 ]; then
        failed=1
        echo "(logs kept in $reports)"
    else
        rm -rf "$reports"
    fi
done
exit "$failed"
