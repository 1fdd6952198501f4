#!/usr/bin/env bash
# exit() with 100 TLS requests in flight, N times (default 200): each run of
# `CurlBridgeProbe exit-storm SEED` starts 100 requests over TLS in the three styles, waits until
# they are under way and calls exit(0). Counts the runs that did not end with status 0 (a crash
# in an exit handler shows as a signal) and prints the seeds and output of those.
#
#   scripts/exit-storm.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-200}
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 [number of runs, default 200]" >&2
    exit 2
fi
scripts/ensure-system-packages.sh
swift build --enable-all-traits --product CurlBridgeProbe
probe="$(swift build --enable-all-traits --show-bin-path)/CurlBridgeProbe"

crashes=0
started=$(date +%s)
for run in $(seq 1 "$runs"); do
    seed=$(( (RANDOM << 16) | RANDOM ))
    status=0
    output=$(timeout 60 "$probe" exit-storm "$seed" 2>&1) || status=$?
    if [ "$status" -ne 0 ]; then
        crashes=$((crashes + 1))
        echo "run $run seed $seed: exit status $status"
        echo "$output" | tail -20
    fi
done
echo "exit-storm runs=$runs crashes=$crashes seconds=$(( $(date +%s) - started ))"
[ "$crashes" -eq 0 ]
