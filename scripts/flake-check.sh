#!/usr/bin/env bash
# Flakiness check: builds once, then runs the whole suite N times in a row (default 20) and
# prints `<passed> passed, <failed> failed`, naming the tests that failed; exits non-zero if any
# run failed. Each failing run's log is kept in a directory named at the start.
#
#   scripts/flake-check.sh [N]        N runs on the machine as it is
#   LOAD=1 scripts/flake-check.sh N   the same with two CPU burners running throughout, to play a
#                                     busy two-core machine
#   RUN_TIMEOUT=600                   seconds after which a run counts as hung, and failed (its
#                                     test process is killed, the unfinished tests are named)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-20}
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 [number of runs, default 20]" >&2
    exit 2
fi
run_timeout=${RUN_TIMEOUT:-600}

scripts/ensure-system-packages.sh
. scripts/test-settings.sh
swift build --enable-all-traits --build-tests

logs=$(mktemp -d "${TMPDIR:-/tmp}/curlbridge-flake-check.XXXXXX")
burners=()
runner=""
# Ends a process and everything it started, by process id, children first.
kill_tree() {
    local child
    for child in $(pgrep -P "$1" || true); do kill_tree "$child"; done
    kill -KILL "$1" 2>/dev/null || true
}
cleanup() {
    for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -z "$runner" ] || kill_tree "$runner"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ "${LOAD:-0}" = 1 ]; then
    for _ in 1 2; do
        yes >/dev/null &
        burners+=($!)
    done
    echo "load: CPU burners ${burners[*]} running"
fi
echo "logs of failing runs: $logs"

# The tests a log shows as started and not finished (test cases of parameterized tests left out).
unfinished_tests() {
    awk '
        match($0, /◇ Test .* started\./) && $0 !~ /◇ Test (case .*|run) started/ {
            name = substr($0, RSTART + 9, RLENGTH - 18); started[name] = 1
        }
        match($0, /[✔✘] Test .* (passed|failed) after/) {
            name = substr($0, RSTART, RLENGTH); sub(/^[✔✘] Test /, "", name)
            sub(/ (passed|failed) after$/, "", name); sub(/ with [0-9]+ test cases?$/, "", name); delete started[name]
        }
        END { for (name in started) printf "%s ", name }
    ' "$1"
}

# Runs the suite once into the log $1. A run still going after $run_timeout seconds is hung: its
# test process is killed first (swift test then still writes out what the tests printed, and no
# orphan is left behind), and the tests it had not finished are noted at the end of the log.
run_suite() {
    local log=$1 deadline=$((SECONDS + run_timeout)) status
    swift test --enable-all-traits --skip-build >"$log" 2>&1 &
    runner=$!
    while kill -0 "$runner" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 1; done
    if kill -0 "$runner" 2>/dev/null; then
        for child in $(pgrep -P "$runner" || true); do kill_tree "$child"; done
        sleep 5
        kill_tree "$runner"
        wait "$runner" 2>/dev/null || true
        runner=""
        printf "\nhung: no result after %s s; unfinished: %s\n" "$run_timeout" "$(unfinished_tests "$log")" >>"$log"
        return 124
    fi
    status=0
    wait "$runner" || status=$?
    runner=""
    return "$status"
}

passed=0
failed=0
for run in $(seq 1 "$runs"); do
    log="$logs/run-$run.log"
    started=$SECONDS
    if run_suite "$log"; then
        passed=$((passed + 1))
        echo "run $run/$runs: passed ($((SECONDS - started)) s)"
        rm -f "$log"
    else
        status=$?
        failed=$((failed + 1))
        echo "run $run/$runs: FAILED ($((SECONDS - started)) s, exit $status), log: $log"
    fi
done

echo "$passed passed, $failed failed"
if [ "$failed" -gt 0 ]; then
    # Swift Testing marks each failed test, and each issue it recorded, with ✘.
    echo "failing tests (number of runs):"
    grep -h "✘ Test .* failed after" "$logs"/run-*.log | grep -v "✘ Test run with" \
        | sed -E 's/.*✘ Test (.*) failed after.*/\1/; s/ with [0-9]+ test cases?$//' | sort | uniq -c || true
    echo "issues:"
    grep -H "✘ .*recorded an issue" "$logs"/run-*.log | sed "s|^$logs/||" || true
    grep -H "^hung:" "$logs"/run-*.log | sed "s|^$logs/||" || true
    for log in "$logs"/run-*.log; do
        grep -q "✘\|^hung:" "$log" || echo "$(basename "$log"): no ✘ line (a crash or a build problem?)"
    done
    exit 1
fi
rmdir "$logs" 2>/dev/null || true
