#!/usr/bin/env bash
# Instructions per request, counted by valgrind's callgrind: CurlBridge's styles against raw C
# libcurl doing the same requests to the same nginx. Instruction counts do not depend on how busy
# the machine is, so this is the figure to decide a performance change with; `run.sh` (wall
# clock) confirms it.
#
#   Benchmarks/instructions.sh                 every workload below (last table: INSTRUCTIONS.md)
#   WORKLOADS="seq h2" Benchmarks/instructions.sh
#   SMALL=200 LARGE=600 …                      requests per run: the two counts whose difference
#                                              is divided out (connection setup, start-up and
#                                              teardown cancel)
#   PAIRS=3 …                                  pairs of runs per client, the median reported: a
#                                              request takes one or two loop turns depending on
#                                              timing, so one pair can be ±1,500 off
#
# Each client runs twice under callgrind, with SMALL and with LARGE requests; its cost per request
# is (instructions(LARGE) − instructions(SMALL)) / (LARGE − SMALL), over every thread of the
# process (curl's loop, dispatch queues, the cooperative pool). The ratio is raw libcurl's cost
# over the client's: 1.00× means no instruction spent beyond what curl itself does.
#
# Raw libcurl sends the same requests as CurlBridge's defaults (LIBCURL_SAME_REQUESTS in
# scripts/clients.sh: User-Agent, Accept-Encoding, the cookie engine); the last row of each table
# is raw libcurl with curl's own defaults, for reference.
#
# The first row reuses its easy handles: the physical limit, which CurlBridge cannot use on
# libcurl < 8.1 (a reused handle keeps a dangling header pointer, curl PR 11103, so CurlBridge makes
# a fresh handle per request). The safe raw baseline below it does the same requests with a fresh
# easy handle per request (`--fresh-handle`: init, every option, cleanup), and seq, h1 and h2 add
# "× safe raw" and "extra over safe raw" columns against it. seq measures it two ways, with
# curl_easy_perform (libcurl-easy-fresh: curl builds and frees a multi handle inside each new
# handle's perform) and with one multi handle, one request in flight (libcurl-multi-fresh, how
# CurlBridge drives curl), and takes the cheaper as its safe raw. The 64k table has that row too, then
# raw libcurl that also collects each body in memory, sized from its Content-Length (`--collect`),
# as any client that returns a body must: the table's safe reference, whose "× collecting safe raw"
# and "extra over collecting safe raw" columns are what issue 37's target (at most 20,000 extra
# instructions per request over the safe raw baseline) reads for 64 KiB bodies.
#
# Beside them, bench-swift-floor (rows swift-floor-blocking, -async, -async-executor, -callback)
# does the safe raw baseline's curl work from Swift with nothing but what every Swift client that
# returns a response must add — each request handed to a loop thread (or driven by the blocking
# caller), its header lines and body kept by Swift callbacks, a Result handed back to a
# continuation, a completion or the caller — so each CurlBridge row's "extra over its Swift floor"
# estimates what CurlBridge itself spends: its validation, policies, metrics, cancellation and the
# rest. An estimate, not a bound: the floor is one tight implementation, not the least possible.
# The kept floor (rows swift-floor-kept-*) is each floor plus what every CurlBridge request does
# whatever its configuration, run with CurlBridge's own code where it has any (the URL check, the
# response head's guard, the blocking guard, through `@_spi(KeptWork)`), the metrics read as
# CurlBridge reads them, and a cancel that reaches the transfer: the least a client with
# CurlBridge's guarantees spends, as far as the floor is the least (an estimate too, and one that
# leaves out a few cheap guarantees: Benchmarks/README.md), so "extra over its kept floor" is about
# what CurlBridge's request model, policies and layering add, the part a redesign could change.
#
# Workloads: seq (sequential 100-byte GETs over HTTP/1.1 keep-alive, libcurl-easy as the
# reference), h1 (64 in flight, HTTP/1.1), h2 (64 in flight, HTTP/2 over TLS), 64k (64 KiB bodies,
# 64 in flight, HTTP/1.1); the last three against libcurl-multi. cache (64 KiB GETs, 64 in
# flight, HTTP/1.1, fresh for an hour) adds a memory HTTPCache to the async style: cache-miss
# sends each request to its own URL, so each is looked up, sent, recorded and stored; cache-hit
# asks for one URL, so all but the first are played from the cache without the network.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORKLOADS=${WORKLOADS:-"seq h1 h2 64k cache"}
SMALL=${SMALL:-200}
LARGE=${LARGE:-600}
PAIRS=${PAIRS:-1}
SCALE=0.01 # server files: only the small ones are requested here
NGINX=/usr/sbin/nginx
export PATH=$PATH:/usr/sbin:/sbin
export BENCH_SAMPLER=off # no sampling thread: its work would grow with the (valgrind-slowed) wall time

# shellcheck source=scripts/server.sh
. "$HERE/scripts/server.sh"
# shellcheck source=scripts/packages.sh
. "$HERE/scripts/packages.sh"
# shellcheck source=scripts/clients.sh
. "$HERE/scripts/clients.sh" # LIBCURL_SAME_REQUESTS

install_missing() {
    local missing=()
    [ -x "$NGINX" ] || missing+=(nginx)
    command -v valgrind >/dev/null || missing+=(valgrind)
    command -v openssl >/dev/null || missing+=(openssl)
    command -v curl >/dev/null || missing+=(curl)
    command -v python3 >/dev/null || missing+=(python3)
    [ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] || [ -f /usr/include/curl/curl.h ] || missing+=(libcurl4-openssl-dev)
    apt_install "${missing[@]}"
}

cleanup() {
    server_stop
    if [ -n "${PREFIX:-}" ]; then rm -rf "$PREFIX"; fi
}

# under_valgrind CONCURRENCY REQUESTS URL OPTION… -- COMMAND…: runs the benchmark client COMMAND
# under valgrind with OPTIONs (the tool and its output file); exits when the run or a request fails.
under_valgrind() {
    local concurrency=$1 requests=$2 url=$3 options=()
    shift 3
    while [ "$1" != -- ]; do options+=("$1"); shift; done
    shift
    if ! valgrind "${options[@]}" \
        "$@" --url "$url" --requests "$requests" --concurrency "$concurrency" --cacert "$CA_PEM" \
        >"$PREFIX/stdout.txt" 2>"$PREFIX/stderr.txt"; then
        echo "failed: $* ($requests requests)" >&2
        tail -n 5 "$PREFIX/stderr.txt" >&2
        exit 1
    fi
    grep -q '"errors": 0' "$PREFIX/stdout.txt" || { echo "requests failed: $*" >&2; cat "$PREFIX/stdout.txt" >&2; exit 1; }
}

# instructions CONCURRENCY REQUESTS URL COMMAND…: the instructions the command executed.
instructions() {
    local out=$PREFIX/callgrind.out
    under_valgrind "$1" "$2" "$3" --tool=callgrind --callgrind-out-file="$out" --dump-instr=no --trace-children=no \
        -- "${@:4}"
    awk '/^summary:/ { print $2 }' "$out"
}

# per_request LABEL CONCURRENCY URL COMMAND…: prints "LABEL<TAB>instructions per request", the
# median over PAIRS pairs of runs.
per_request() {
    local label=$1 concurrency=$2 url=$3 small large pair costs=()
    shift 3
    for ((pair = 0; pair < PAIRS; pair++)); do
        small=$(instructions "$concurrency" "$SMALL" "$url" "$@")
        large=$(instructions "$concurrency" "$LARGE" "$url" "$@")
        costs+=($(((large - small) / (LARGE - SMALL))))
    done
    printf '%s\t%s\n' "$label" "$(printf '%s\n' "${costs[@]}" | sort -n | sed -n "$(((PAIRS + 1) / 2))p")"
}

# workload NAME CONCURRENCY URL REFERENCE SAFE STYLE…: one table. SAFE lists the safe baselines
# measured beside the reference ("" for none), each a bench-libcurl mode and variant: easy-fresh,
# multi-fresh (a fresh easy handle per request), multi-fresh-collect (each body held in memory too).
# The table's safe reference is the cheapest of them, of the collecting ones where there are any:
# the least a safe client doing the same work must spend. A STYLE may name a bench-curlbridge
# workload after a colon (async:cache-miss), or be floor-STYLE: bench-swift-floor in that style,
# the least a Swift client of that style spends on the same work (Sources/BenchSwiftFloor); each
# CurlBridge row then also shows its extra over its style's floor: what CurlBridge itself adds.
workload() {
    local name=$1 concurrency=$2 url=$3 reference=$4 safe=$5 rows=$PREFIX/rows.tsv style variant
    shift 5
    echo "[$name] $concurrency in flight, $url" >&2
    : >"$rows"
    per_request "libcurl-$reference" "$concurrency" "$url" "$BIN/bench-libcurl" --mode "$reference" "${LIBCURL_SAME_REQUESTS[@]}" >>"$rows"
    for variant in $safe; do
        case $variant in
        easy-fresh | multi-fresh) per_request "libcurl-$variant" "$concurrency" "$url" "$BIN/bench-libcurl" \
            --mode "${variant%-fresh}" --fresh-handle "${LIBCURL_SAME_REQUESTS[@]}" >>"$rows" ;;
        multi-fresh-collect) per_request "libcurl-$variant" "$concurrency" "$url" "$BIN/bench-libcurl" --mode multi \
            --fresh-handle --collect "${LIBCURL_SAME_REQUESTS[@]}" >>"$rows" ;;
        *) echo "unknown safe baseline $variant" >&2; exit 2 ;;
        esac
    done
    for style in "$@"; do
        case $style in
        floor-*) per_request "swift-$style" "$concurrency" "$url" "$BIN/bench-swift-floor" --style "${style#floor-}" >>"$rows" ;;
        *:*) per_request "curlbridge-${style%%:*}, ${style#*:}" "$concurrency" "$url" "$BIN/bench-curlbridge" \
            --style "${style%%:*}" --workload "${style#*:}" >>"$rows" ;;
        *) per_request "curlbridge-$style" "$concurrency" "$url" "$BIN/bench-curlbridge" --style "$style" >>"$rows" ;;
        esac
    done
    per_request "libcurl-$reference, curl's defaults" "$concurrency" "$url" "$BIN/bench-libcurl" --mode "$reference" >>"$rows"
    python3 - "$name" "$rows" "$safe" <<'PY'
import sys
name, path, safe_variants = sys.argv[1], sys.argv[2], sys.argv[3].split()
rows = [line.rstrip("\n").split("\t") for line in open(path)]
counts = {label: int(count) for label, count in rows}
reference = int(rows[0][1])
candidates = [f"libcurl-{variant}" for variant in safe_variants]
collecting = [label for label in candidates if label.endswith("-collect")]
safe_label = min(collecting or candidates, key=counts.get) if candidates else None
safe = counts.get(safe_label)
title = "collecting safe raw" if collecting else "safe raw"
floors = {label[len("swift-floor-"):]: count for label, count in counts.items() if label.startswith("swift-floor-")}
kept_floors = any(style.startswith("kept-") for style in floors)
def floor_of(label, prefix=""):
    """The floor (or, with prefix "kept-", the kept floor) of a CurlBridge row's style, if measured."""
    if not label.startswith("curlbridge-"):
        return None
    style = label[len("curlbridge-"):].split(",")[0]
    return floors.get(prefix + style)
print(f"\n### {name}\n")
if safe is not None:
    print(f"Safe raw: `{safe_label}`.\n")
header = ["client", "instructions/request", "× raw libcurl", "extra/request"]
if safe is not None:
    header += [f"× {title}", f"extra over {title}"]
if floors:
    header += ["extra over its Swift floor"]
if kept_floors:
    header += ["extra over its kept floor"]
print("| " + " | ".join(header) + " |")
print("|---|" + "---:|" * (len(header) - 1))
for label, count in rows:
    count = int(count)
    cells = [label, f"{count:,}"]
    cells += ["", ""] if label == rows[0][0] else [f"{reference / count:.2f}×", f"{count - reference:,}"]
    if safe is not None:
        cells += ["", ""] if label == safe_label else [f"{safe / count:.2f}×", f"{count - safe:,}"]
    for prefix in ([""] if floors else []) + (["kept-"] if kept_floors else []):
        floor = floor_of(label, prefix)
        cells += ["" if floor is None else f"{count - floor:,}"]
    print("| " + " | ".join(cells) + " |")
PY
}

# prepare_binaries: builds the benchmark clients (release) and sets BIN to copies valgrind can read.
prepare_binaries() {
    echo "building (release)…" >&2
    swift build -c release --package-path "$HERE" --product bench-curlbridge >"$PREFIX/build.log" 2>&1 &&
        swift build -c release --package-path "$HERE" --product bench-libcurl >>"$PREFIX/build.log" 2>&1 &&
        swift build -c release --package-path "$HERE" --product bench-swift-floor >>"$PREFIX/build.log" 2>&1 &&
        swift build -c release --package-path "$HERE" --product bench-upload-sink >>"$PREFIX/build.log" 2>&1 ||
        { tail -n 40 "$PREFIX/build.log" >&2; exit 1; }
    # Valgrind 3.19 cannot read the DWARF 5 the toolchain writes ("possibly corrupted debuginfo"):
    # count with copies whose debug sections are stripped (function names stay for profiles).
    local built
    built=$(swift build -c release --package-path "$HERE" --show-bin-path)
    BIN=$PREFIX/bin
    mkdir -p "$BIN"
    cp "$built/bench-curlbridge" "$built/bench-libcurl" "$built/bench-swift-floor" "$built/bench-upload-sink" "$BIN/"
    strip --strip-debug "$BIN"/bench-*
}

main() {
    install_missing
    PREFIX=$(mktemp -d /tmp/curlbridge-instructions.XXXXXX)
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    prepare_binaries
    server_prepare "$PREFIX"
    server_start
    echo "# Instructions per request (callgrind, $SMALL vs $LARGE requests$([ "$PAIRS" -gt 1 ] && echo ", median of $PAIRS pairs"))"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo unknown), libcurl $(curl-config --version 2>/dev/null | cut -d' ' -f2)"
    local name
    for name in $WORKLOADS; do
        case $name in
        seq) workload "sequential 100-byte GETs, HTTP/1.1" 1 "http://127.0.0.1:$HTTP_PORT/small" easy "easy-fresh multi-fresh" \
            floor-blocking floor-async floor-async-executor floor-callback floor-kept-blocking floor-kept-async \
            floor-kept-async-executor floor-kept-callback blocking async async-executor callback ;;
        h1) workload "100-byte GETs, 64 in flight, HTTP/1.1" 64 "http://127.0.0.1:$HTTP_PORT/small" multi multi-fresh \
            floor-async floor-async-executor floor-callback floor-kept-async floor-kept-async-executor floor-kept-callback \
            async async-executor callback ;;
        h2) workload "100-byte GETs, 64 in flight, HTTP/2 over TLS" 64 "https://127.0.0.1:$HTTPS_PORT/small" multi multi-fresh \
            floor-async floor-async-executor floor-callback floor-kept-async floor-kept-async-executor floor-kept-callback \
            async async-executor callback ;;
        64k) workload "64 KiB GETs, 64 in flight, HTTP/1.1" 64 "http://127.0.0.1:$HTTP_PORT/64k" multi \
            "multi-fresh multi-fresh-collect" floor-async floor-async-executor floor-callback floor-kept-async \
            floor-kept-async-executor floor-kept-callback async async-executor callback ;;
        cache) workload "64 KiB GETs through a memory cache, 64 in flight, HTTP/1.1" 64 "http://127.0.0.1:$HTTP_PORT/cached/64k" \
            multi "" async async:cache-miss async:cache-hit ;;
        *) echo "unknown workload $name (seq, h1, h2, 64k, cache)" >&2; exit 2 ;;
        esac
    done
}

# footprint.sh sources this file for its helpers; run directly, it measures.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
