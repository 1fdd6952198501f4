#!/usr/bin/env bash
# Cancellation storm: for SECONDS (default 60) starts requests against the embedded test server
# and cancels each at a random phase (queued behind the connection limit, connecting, in the TLS
# handshake, waiting for the head, mid-body, paused by backpressure, completing, waiting to be
# retried) in the three styles, through every cancel path (handle, task, TransferCanceller,
# cancelAll). Prints cancels/s, completions, lost and duplicate completions (both must be 0), the
# p50/p99/max latency from each cancel call to the library's completion event (the EventMonitor's
# requestDidComplete), and descriptor/thread/curl-handle counts before and after. Exits non-zero
# if anything was lost, duplicated or unexpected, or a count did not come back.
#
#   scripts/cancel-storm.sh [SECONDS] [extra CurlBridgeStorm options, e.g. --seed 42 --concurrency 128]
#   CONFIGURATION=release scripts/cancel-storm.sh 10   a release build (default: debug, as measured)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
configuration=${CONFIGURATION:-debug}
scripts/ensure-system-packages.sh
swift build --enable-all-traits -c "$configuration" --product CurlBridgeStorm
exec "$(swift build --enable-all-traits -c "$configuration" --show-bin-path)/CurlBridgeStorm" cancel --duration "$seconds" "$@"
