#!/usr/bin/env bash
# CurlBridge benchmark suite: builds the clients, starts a private nginx on loopback, runs every
# client on every selected workload (interleaved, REPEATS times), and writes the medians with
# ratios against raw libcurl to RESULTS.md: against raw libcurl reusing its easy handles (the
# physical limit), and in workloads 1, 2, 3, 5 and 6 against the safe raw baseline too, raw
# libcurl with a fresh easy handle per request (what libcurl < 8.1 forces on CurlBridge: a reused
# handle keeps a dangling header pointer, curl PR 11103), which in workload 6 also collects each
# 64 KiB body in memory, as any client that returns a body must (README.md, "The safe raw
# baselines").
#
#   Benchmarks/run.sh                      full run (about 10 minutes on 2 cores after the build)
#   SCALE=0.1 Benchmarks/run.sh            a tenth of the requests and download size: a smoke run
#   WORKLOADS="1 3" Benchmarks/run.sh      only some workloads (1-9, see README.md)
#   REPEATS=1 TIMEOUT=60 …                 repetitions per client, per-invocation time limit (s)
#   SLOW_REPEATS=3 …                       repetitions of the slow consumer (7), 1 by default
#   CARRY_OVER=0 …                         drop, rather than keep, the tables of workloads not run
#
# Only 127.0.0.1 is contacted. Everything it starts is stopped by PID on exit.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SCALE=${SCALE:-1}
WORKLOADS=${WORKLOADS:-"1 2 3 4 5 6 7 8 9"}
REPEATS=${REPEATS:-3}
SLOW_REPEATS=${SLOW_REPEATS:-1}
CARRY_OVER=${CARRY_OVER:-1}
TIMEOUT=${TIMEOUT:-120}
RESULTS=${RESULTS:-$HERE/RESULTS.md}
NGINX=/usr/sbin/nginx
export PATH=$PATH:/usr/sbin:/sbin

# shellcheck source=scripts/server.sh
. "$HERE/scripts/server.sh"
# shellcheck source=scripts/packages.sh
. "$HERE/scripts/packages.sh"
# shellcheck source=scripts/clients.sh
. "$HERE/scripts/clients.sh"

install_missing() {
    local missing=()
    [ -x "$NGINX" ] || missing+=(nginx)
    command -v wrk >/dev/null || missing+=(wrk)
    command -v openssl >/dev/null || missing+=(openssl)
    command -v curl >/dev/null || missing+=(curl)
    command -v python3 >/dev/null || missing+=(python3)
    command -v unshare >/dev/null || missing+=(util-linux)
    [ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] || [ -f /usr/include/curl/curl.h ] || missing+=(libcurl4-openssl-dev)
    command -v pkg-config >/dev/null || missing+=(pkg-config)
    [ -f "$SYSTEM_BUNDLE" ] || missing+=(ca-certificates)
    apt_install "${missing[@]}"
}

scaled() { python3 -c "print(max(1, round($1 * float('$SCALE'))))"; }

cleanup() {
    server_stop
    if [ -n "${PREFIX:-}" ]; then rm -rf "$PREFIX"; fi
}

main() {
    local started=$SECONDS
    install_missing
    PREFIX=$(mktemp -d /tmp/curlbridge-bench.XXXXXX)
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    echo "building (release)…" >&2
    if ! swift build -c release --package-path "$HERE" >"$PREFIX/build.log" 2>&1; then
        tail -n 40 "$PREFIX/build.log" >&2
        echo "the benchmark build failed" >&2
        exit 1
    fi
    grep -E "warning: " "$PREFIX/build.log" | grep -F "$HERE/Sources" >&2 || true
    BIN=$(swift build -c release --package-path "$HERE" --show-bin-path)
    local built=$SECONDS

    server_prepare "$PREFIX"
    server_start
    ulimit -n 16384 2>/dev/null || true
    RAW=$PREFIX/results.tsv
    : >"$RAW"

    local workload
    for workload in $WORKLOADS; do
        case $workload in
        1) workload_sequential ;;
        2) workload_concurrent_h1 ;;
        3) workload_concurrent_h2 ;;
        4) workload_download ;;
        5) workload_thousand ;;
        6) workload_64k ;;
        7) workload_slow_consumer ;;
        8) workload_upload ;;
        9) workload_new_tls_connections ;;
        *) echo "unknown workload $workload (1-9)" >&2; exit 2 ;;
        esac
    done
    server_stop

    # Workloads this run did not measure keep their tables from the previous RESULTS.md.
    local previous=()
    if [ "$CARRY_OVER" = 1 ] && [ -f "$RESULTS" ]; then previous=(--previous "$RESULTS"); fi
    python3 "$HERE/scripts/summarize.py" "$RAW" "${previous[@]}" \
        --scale "$SCALE" --repeats "$REPEATS" --build-seconds $((built - started)) \
        --run-seconds $((SECONDS - built)) >"$PREFIX/RESULTS.md"
    cp "$PREFIX/RESULTS.md" "$RESULTS"
    cat "$RESULTS"
    echo "wrote $RESULTS in $((SECONDS - started)) s" >&2
}

main "$@"
