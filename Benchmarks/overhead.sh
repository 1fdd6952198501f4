#!/usr/bin/env bash
# What CurlBridge spends per request over its Swift floor (bench-swift-floor, the least a Swift
# client of the same style spends on the same curl work), and the floor over the safe raw
# baseline (raw libcurl with a fresh easy handle per request, each body collected for 64k), by
# kind of work; then which of CurlBridge's own functions cost the most: the account behind
# INSTRUCTIONS.md's "what CurlBridge adds over its floor".
#
#   Benchmarks/overhead.sh                         async, 64 in flight, HTTP/1.1 (h1)
#   STYLE=callback WORKLOAD=seq Benchmarks/overhead.sh
#   TOP=40 …                                       CurlBridge's own functions listed (25)
#   SMALL=200 LARGE=600 …                          as instructions.sh: the difference is divided out
#
# STYLE is blocking (seq only), async, async-executor or callback; WORKLOAD is seq, h1, h2 or 64k
# (instructions.sh's). One pair of callgrind runs per client: totals move by a few thousand
# instructions between pairs (a request takes one or two loop turns depending on timing), so read
# the kinds as shares and take totals from instructions.sh's medians.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STYLE=${STYLE:-async}
WORKLOAD=${WORKLOAD:-h1}
TOP=${TOP:-25}
# shellcheck source=instructions.sh
. "$HERE/instructions.sh" # helpers: install_missing, prepare_binaries, under_valgrind, cleanup; the server

# profile LABEL CONCURRENCY URL COMMAND…: callgrind runs of SMALL and LARGE requests, kept as
# $PREFIX/LABEL.SMALL and $PREFIX/LABEL.LARGE.
profile() {
    local label=$1 concurrency=$2 url=$3 requests
    shift 3
    for requests in "$SMALL" "$LARGE"; do
        under_valgrind "$concurrency" "$requests" "$url" --tool=callgrind \
            --callgrind-out-file="$PREFIX/$label.$requests" --dump-instr=no --trace-children=no -- "$@"
    done
}

overhead_main() {
    local concurrency=64 url
    case $STYLE in blocking | async | async-executor | callback) ;; *) echo "unknown style $STYLE" >&2; exit 2 ;; esac
    case $WORKLOAD in seq | h1 | h2 | 64k) ;; *) echo "unknown workload $WORKLOAD (seq, h1, h2, 64k)" >&2; exit 2 ;; esac
    [ "$STYLE" != blocking ] || [ "$WORKLOAD" = seq ] || { echo "the blocking style runs seq only" >&2; exit 2; }
    install_missing
    PREFIX=$(mktemp -d /tmp/curlbridge-overhead.XXXXXX)
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    prepare_binaries
    server_prepare "$PREFIX"
    server_start
    case $WORKLOAD in
    seq) concurrency=1 url="http://127.0.0.1:$HTTP_PORT/small" ;;
    h1) url="http://127.0.0.1:$HTTP_PORT/small" ;;
    h2) url="https://127.0.0.1:$HTTPS_PORT/small" ;;
    64k) url="http://127.0.0.1:$HTTP_PORT/64k" ;;
    esac
    echo "[$WORKLOAD, $STYLE] $concurrency in flight, $url" >&2
    local collect=()
    [ "$WORKLOAD" != 64k ] || collect=(--collect)
    profile raw "$concurrency" "$url" "$BIN/bench-libcurl" --mode multi --fresh-handle "${collect[@]}" \
        "${LIBCURL_SAME_REQUESTS[@]}"
    profile floor "$concurrency" "$url" "$BIN/bench-swift-floor" --style "$STYLE"
    profile curlbridge "$concurrency" "$url" "$BIN/bench-curlbridge" --style "$STYLE"
    echo "# $WORKLOAD, $STYLE: CurlBridge over its Swift floor over safe raw (callgrind, $SMALL vs $LARGE requests)"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo
    python3 "$HERE/scripts/overhead.py" "$((LARGE - SMALL))" "$TOP" \
        "safe raw" "$PREFIX/raw.$SMALL" "$PREFIX/raw.$LARGE" \
        "swift-floor-$STYLE" "$PREFIX/floor.$SMALL" "$PREFIX/floor.$LARGE" \
        "curlbridge-$STYLE" "$PREFIX/curlbridge.$SMALL" "$PREFIX/curlbridge.$LARGE"
}

overhead_main "$@"
