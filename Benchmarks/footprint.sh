#!/usr/bin/env bash
# What a request costs the processor beyond its instructions: cache misses and mispredicted
# branches per request, counted by valgrind's cachegrind (a simulated 32 KiB L1i and L1d and a
# branch predictor), CurlBridge's styles against the safe raw libcurl baseline.
#
#   Benchmarks/footprint.sh                       sequential GETs (seq), then 64 in flight (h1)
#   WORKLOADS=seq Benchmarks/footprint.sh
#   SMALL=200 LARGE=600 …                         as instructions.sh: the difference is divided out
#
# Why: on the sequential workload CurlBridge executes about 28% more instructions than raw libcurl
# but spends about 70% more user CPU per request. A request's code does not fit the L1
# instruction cache (raw libcurl's alone misses about 1,800 lines of it per request), so every
# line of code a request runs is fetched again for the next request: what a client adds costs
# in the cache lines it touches and the indirect calls it makes, not only in instructions.
#
# Columns, per request: instructions (Ir), L1 instruction-cache misses (I1mr: distinct lines of
# code fetched, each 64 bytes), L1 data-cache misses (D1mr + D1mw), and mispredicted conditional
# and indirect branches (Bcm + Bim). The second table charges the instruction-cache misses to
# whose code missed: CurlBridge and the benchmark (with swift-http-types and swift-log, linked
# into the same executable), Swift's runtime and standard library, Foundation, libdispatch,
# curl, malloc, and the rest of libc. Simulated counts, deterministic like instructions.sh's; a
# processor's real caches and predictor differ, so read them as the shape of the cost, and
# confirm with run.sh.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REQUESTED=${WORKLOADS:-"seq h1"}
# shellcheck source=instructions.sh
. "$HERE/instructions.sh" # helpers: install_missing, prepare_binaries, under_valgrind, cleanup; the server
WORKLOADS=$REQUESTED
RUNS=0 # cachegrind runs so far, naming their files

# footprint LABEL CONCURRENCY URL COMMAND…: appends "LABEL<TAB>SMALL-run file<TAB>LARGE-run file".
footprint() {
    local label=$1 concurrency=$2 url=$3 requests files=()
    shift 3
    for requests in "$SMALL" "$LARGE"; do
        local out=$PREFIX/cachegrind.$((RUNS++))
        under_valgrind "$concurrency" "$requests" "$url" \
            --tool=cachegrind --cache-sim=yes --branch-sim=yes --cachegrind-out-file="$out" -- "$@"
        files+=("$out")
    done
    printf '%s\t%s\t%s\n' "$label" "${files[0]}" "${files[1]}" >>"$PREFIX/runs.tsv"
}

# table NAME CONCURRENCY URL STYLE…: the safe raw baseline and each style, then the two tables.
table() {
    local name=$1 concurrency=$2 url=$3 style
    shift 3
    echo "[$name] $concurrency in flight, $url" >&2
    : >"$PREFIX/runs.tsv"
    footprint "libcurl-multi-fresh" "$concurrency" "$url" "$BIN/bench-libcurl" --mode multi --fresh-handle \
        "${LIBCURL_SAME_REQUESTS[@]}"
    for style in "$@"; do
        footprint "curlbridge-$style" "$concurrency" "$url" "$BIN/bench-curlbridge" --style "$style"
    done
    python3 - "$name" "$PREFIX/runs.tsv" "$((LARGE - SMALL))" <<'PY'
import collections, re, subprocess, sys

name, runs, requests = sys.argv[1], sys.argv[2], int(sys.argv[3])
OWNERS = ["CurlBridge", "Swift runtime", "Foundation", "libdispatch", "curl", "malloc", "libc", "other"]

def owner(function):
    if re.search(r"CurlBridge|Bench|HTTPTypes|Logging", function):
        return "CurlBridge"
    if "Foundation" in function:
        return "Foundation"
    if "dispatch" in function:
        return "libdispatch"
    if re.search(r"swift_|swift::|\$s[sS]", function):
        return "Swift runtime"
    if re.search(r"malloc|arena", function):
        return "malloc"
    if function == "???:???" or "curl" in function or re.match(r"\?\?\?:0x", function):
        return "curl"  # curl's static functions have no symbol in Debian's libcurl
    return "libc" if function.startswith("./") else "other"

def load(path):
    events = totals = None
    for line in open(path):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            totals = dict(zip(events, map(int, line.split()[1:])))
    report = subprocess.run(["cg_annotate", "--show=I1mr", "--sort=I1mr", "--threshold=0", path],
                            capture_output=True, text=True, check=True).stdout
    misses, listing = collections.Counter(), False
    for line in report.splitlines():
        if "file:function" in line:
            listing = True
            continue
        match = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*)$", line) if listing else None
        if match:
            misses[owner(match.group(2).strip())] += int(match.group(1).replace(",", ""))
        elif listing and line.startswith("---") and misses:
            break
    return totals, misses

rows = []
for label, small, large in (line.rstrip("\n").split("\t") for line in open(runs)):
    (a, am), (b, bm) = load(small), load(large)
    per = lambda key: (b[key] - a[key]) / requests
    counts = {"Ir": per("Ir"), "I1mr": per("I1mr"), "D1m": per("D1mr") + per("D1mw"),
              "Bm": per("Bcm") + per("Bim")}
    rows.append((label, counts, {o: (bm[o] - am[o]) / requests for o in OWNERS}))

base = rows[0][1]
print(f"\n### {name}\n")
print("| client | instructions | L1i misses | L1d misses | mispredicted branches | extra over safe raw (instructions / L1i / L1d / branches) |")
print("|---|---:|---:|---:|---:|---|")
for label, counts, _ in rows:
    extra = "" if counts is base else " / ".join(f"{counts[k] - base[k]:+,.0f}" for k in ("Ir", "I1mr", "D1m", "Bm"))
    print(f"| {label} | {counts['Ir']:,.0f} | {counts['I1mr']:,.0f} | {counts['D1m']:,.0f} | {counts['Bm']:,.0f} | {extra} |")
print("\nL1i misses per request, by whose code missed:\n")
print("| client | " + " | ".join(OWNERS) + " |")
print("|---|" + "---:|" * len(OWNERS))
for label, _, owners in rows:
    print(f"| {label} | " + " | ".join(f"{owners[o]:,.0f}" for o in OWNERS) + " |")
PY
}

footprint_main() {
    install_missing
    PREFIX=$(mktemp -d /tmp/curlbridge-footprint.XXXXXX)
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    prepare_binaries
    server_prepare "$PREFIX"
    server_start
    echo "# Cache misses and mispredicted branches per request (cachegrind, $SMALL vs $LARGE requests)"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo unknown), libcurl $(curl-config --version 2>/dev/null | cut -d' ' -f2)"
    local name
    for name in $WORKLOADS; do
        case $name in
        seq) table "sequential 100-byte GETs, HTTP/1.1" 1 "http://127.0.0.1:$HTTP_PORT/small" blocking async async-executor callback ;;
        h1) table "100-byte GETs, 64 in flight, HTTP/1.1" 64 "http://127.0.0.1:$HTTP_PORT/small" async async-executor callback ;;
        *) echo "unknown workload $name (seq, h1)" >&2; exit 2 ;;
        esac
    done
}

footprint_main "$@"
