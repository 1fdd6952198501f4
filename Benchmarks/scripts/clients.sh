# shellcheck shell=bash
# Sourced by run.sh: how each client is invoked, and the workloads.
# Every result is appended to $RAW as "workload<TAB>label<TAB>json".

# FoundationNetworking on Linux trusts only the system CA bundle, so URLSession over TLS runs in a
# private mount namespace where the test CA is bind-mounted over it; nothing outside that process
# sees the change.
SYSTEM_BUNDLE=/etc/ssl/certs/ca-certificates.crt
# shellcheck disable=SC2016 # expanded by the inner sh
WITH_TEST_CA=(unshare --mount --propagation private sh -c 'mount --bind "$0" "$1" && shift && exec "$@"')

# What CurlBridge's default configuration asks of curl for every request — its User-Agent, every
# content encoding curl decodes, the cookie engine with one jar, the CA file without curl's CA
# directory (so curl caches the parsed store) — given to raw libcurl too, so that both send the same
# requests and do the same protocol work (the ratios compare the clients, not their defaults).
LIBCURL_SAME_HEADERS=(--user-agent "CurlBridge/$(sed -n 's/.*static let current = "\(.*\)"/\1/p' \
    "$(dirname "${BASH_SOURCE[0]}")/../../Sources/CurlBridge/Core/Configuration/Configuration.swift") libcurl/$(curl-config --version 2>/dev/null | cut -d' ' -f2)" \
    --decode --cookies)
LIBCURL_SAME_REQUESTS=("${LIBCURL_SAME_HEADERS[@]}" --no-ca-path)

# client_command LABEL: the command for LABEL, into the CMD array (common arguments appended later).
# Labels ending in -download use the client's download-to-a-file verb (--transfer download).
client_command() {
    case $1 in
    # -async-executor: the async style with its tasks preferring the transport's executor.
    curlbridge-blocking | curlbridge-async | curlbridge-async-executor | curlbridge-callback)
        CMD=("$BIN/bench-curlbridge" --style "${1#curlbridge-}") ;;
    curlbridge-*-download) CMD=("$BIN/bench-curlbridge" --style "$(echo "$1" | cut -d- -f2)" --transfer download) ;;
    libcurl-easy | libcurl-multi) CMD=("$BIN/bench-libcurl" --mode "${1#libcurl-}" "${LIBCURL_SAME_REQUESTS[@]}") ;;
    # The safe baselines on libcurl < 8.1 (a reused handle keeps a dangling header pointer, curl PR
    # 11103): a fresh easy handle per request; -fresh-collect also holds each body in memory.
    libcurl-easy-fresh | libcurl-multi-fresh) CMD=("$BIN/bench-libcurl" --mode "$(echo "$1" | cut -d- -f2)" --fresh-handle \
        "${LIBCURL_SAME_REQUESTS[@]}") ;;
    libcurl-multi-fresh-collect) CMD=("$BIN/bench-libcurl" --mode multi --fresh-handle --collect "${LIBCURL_SAME_REQUESTS[@]}") ;;
    # Debian's libcurl as built: CA file and CA directory, the store parsed for every connection.
    libcurl-easy-ca-path) CMD=("$BIN/bench-libcurl" --mode easy "${LIBCURL_SAME_HEADERS[@]}") ;;
    libcurl-multi-16k) CMD=("$BIN/bench-libcurl" --mode multi --buffer 16384 "${LIBCURL_SAME_REQUESTS[@]}") ;;
    libcurl-multi-512k-upload) CMD=("$BIN/bench-libcurl" --mode multi --upload-buffer 524288 "${LIBCURL_SAME_REQUESTS[@]}") ;;
    # The Swift floor (issue 37): libcurl-multi-fresh's work plus what any Swift client returning a
    # response must do, in a CurlBridge style, and nothing else: where this architecture's wall
    # clock and memory start (README.md, "The clients").
    swift-floor-blocking | swift-floor-async | swift-floor-async-executor | swift-floor-callback) CMD=("$BIN/bench-swift-floor" --style "${1#swift-floor-}") ;;
    urlsession-sync | urlsession-async) CMD=("$BIN/bench-urlsession" --mode "${1#urlsession-}") ;;
    urlsession-download) CMD=("$BIN/bench-urlsession" --mode sync --transfer download) ;;
    ahc) CMD=("$BIN/bench-ahc") ;;
    ahc-download) CMD=("$BIN/bench-ahc" --transfer download) ;;
    *) echo "unknown client $1" >&2; exit 2 ;;
    esac
    if [ -n "${SYSTEM_TRUST_BUNDLE:-}" ]; then
        CMD=("${WITH_TEST_CA[@]}" "$SYSTEM_TRUST_BUNDLE" "$SYSTEM_BUNDLE" "${CMD[@]}")
    elif [[ $1 == urlsession-* && $URL == https://* ]]; then
        CMD=("${WITH_TEST_CA[@]}" "$CA_PEM" "$SYSTEM_BUNDLE" "${CMD[@]}")
    fi
}

# The CA arguments of every client: the test CA, or nothing where the system store is measured.
ca_arguments() {
    if [ -n "${SYSTEM_TRUST_BUNDLE:-}" ]; then CA_ARGS=(); else CA_ARGS=(--cacert "$CA_PEM"); fi
}

# run_client LABEL: one invocation with the current WORKLOAD, URL, REQUESTS, CONCURRENCY, EXTRA.
run_client() {
    local label=$1 output status=0 line
    client_command "$label"
    ca_arguments
    output=$(timeout --kill-after=5 "$TIMEOUT" "${CMD[@]}" --url "$URL" --requests "$REQUESTS" \
        --concurrency "$CONCURRENCY" --workload "$WORKLOAD" "${CA_ARGS[@]}" "${EXTRA[@]}" \
        2>"$PREFIX/stderr.txt") || status=$?
    line=$(printf '%s\n' "$output" | grep '^{' | tail -n 1 || true)
    if [ -z "$line" ]; then
        local why
        why=$(head -c 300 "$PREFIX/stderr.txt" | tr -d "\"\\\\" | tr '\n\t' '  ')
        if [ "$status" -eq 124 ]; then why="timed out after ${TIMEOUT}s. $why"; fi
        line="{\"client\": \"$label\", \"workload\": \"$WORKLOAD\", \"failed\": \"exit $status: $why\"}"
    fi
    if [ -s "$PREFIX/stderr.txt" ]; then sed "s/^/    $label: /" "$PREFIX/stderr.txt" | head -n 3 >&2; fi
    printf '%s\t%s\t%s\n' "$WORKLOAD" "$label" "$line" >>"$RAW"
    printf '  %-28s %s\n' "$label" "$(summary_of "$line")" >&2
}

summary_of() {
    python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r.get("skipped") and "skipped: "+r["skipped"] or r.get("failed") and "FAILED: "+r["failed"] or "%s req/s  %s MB/s  p50 %s ms  %s errors  %s threads  %s MiB" % (r["rps"], r["mb_per_s"], r["p50_ms"], r["errors"], r["threads_peak"], r["peak_rss_mib"]))' "$1"
}

# rounds LABEL…: every client once per round (A B C A B C …), REPEATS rounds.
rounds() {
    local round label
    for round in $(seq 1 "$REPEATS"); do
        echo "[$WORKLOAD] round $round/$REPEATS" >&2
        for label in "$@"; do
            run_client "$label"
            if [ -n "${AFTER_EACH:-}" ]; then $AFTER_EACH; fi
        done
    done
}

# wrk_ceiling CONNECTIONS: the server's own ceiling on this URL, wrk's HTTP/1.1 (it has no HTTP/2).
wrk_ceiling() {
    local connections=$1 seconds output
    seconds=$(python3 -c "print(max(1, round(3 * float('$SCALE'))))")
    output=$(timeout "$TIMEOUT" wrk -t1 -c"$connections" -d"${seconds}s" --latency "$URL" 2>&1 || true)
    local line
    line=$(printf '%s\n' "$output" | python3 -c '
import json, re, sys
text = sys.stdin.read()
def ms(label):
    m = re.search(r"^\s*" + label + r"%\s+([\d.]+)(us|ms|s)\b", text, re.M)
    if not m: return None
    return round(float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)], 4)
rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print(json.dumps({"client": "wrk", "workload": sys.argv[1], "concurrency": int(sys.argv[2]),
                  "rps": float(rps.group(1)) if rps else None, "p50_ms": ms("50"), "p99_ms": ms("99"),
                  "errors": int(errors.group(1)) if errors else 0,
                  **({} if rps else {"failed": text.strip()[:300]})}))' "$WORKLOAD" "$connections")
    printf '%s\t%s\t%s\n' "$WORKLOAD" "wrk" "$line" >>"$RAW"
    printf '  %-28s %s\n' "wrk (server ceiling)" "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get("rps"), "req/s")' "$line")" >&2
}

workload_sequential() {
    WORKLOAD=1-sequential-h1 URL=http://127.0.0.1:$HTTP_PORT/small
    REQUESTS=$(scaled 20000) CONCURRENCY=1 EXTRA=()
    wrk_ceiling 1
    rounds curlbridge-blocking curlbridge-async curlbridge-async-executor curlbridge-callback libcurl-easy libcurl-easy-fresh \
        libcurl-multi-fresh swift-floor-blocking swift-floor-async swift-floor-async-executor urlsession-sync ahc
}

workload_concurrent_h1() {
    WORKLOAD=2-64-in-flight-h1 URL=http://127.0.0.1:$HTTP_PORT/small
    REQUESTS=$(scaled 50000) CONCURRENCY=64 EXTRA=()
    wrk_ceiling 64
    rounds curlbridge-async curlbridge-async-executor curlbridge-callback libcurl-multi libcurl-multi-fresh swift-floor-async \
        swift-floor-async-executor swift-floor-callback urlsession-async ahc
}

workload_concurrent_h2() {
    WORKLOAD=3-64-in-flight-h2-tls URL=https://127.0.0.1:$HTTPS_PORT/small
    REQUESTS=$(scaled 20000) CONCURRENCY=64 EXTRA=()
    wrk_ceiling 64
    rounds curlbridge-async curlbridge-async-executor curlbridge-callback libcurl-multi libcurl-multi-fresh swift-floor-async \
        swift-floor-async-executor swift-floor-callback urlsession-async ahc
}

# Deletes the downloaded file (and any partial file a failed download left beside it).
remove_download() { rm -f "$PREFIX/download.out" "$PREFIX"/.download.out.*; }

# 4a: streamed to /dev/null (CurlBridge through each style's streaming API); 4b: to a file flushed
# to disk, CurlBridge's and the peers' download verbs against libcurl writing and fsyncing the
# same file; 4c: to a file left in the page cache (streamed, no fsync: a download verb always
# flushes, so CurlBridge streams here).
workload_download() {
    URL=http://127.0.0.1:$HTTP_PORT/big REQUESTS=1 CONCURRENCY=1
    WORKLOAD=4a-download-to-devnull EXTRA=(--stream --output /dev/null)
    rounds curlbridge-async curlbridge-blocking curlbridge-callback libcurl-easy libcurl-multi libcurl-multi-16k \
        urlsession-sync ahc
    WORKLOAD=4b-download-to-file-fsync EXTRA=(--stream --output "$PREFIX/download.out" --fsync)
    AFTER_EACH=remove_download rounds curlbridge-async-download curlbridge-blocking-download \
        curlbridge-callback-download libcurl-easy libcurl-multi urlsession-download ahc-download
    WORKLOAD=4c-download-to-file-no-fsync EXTRA=(--stream --output "$PREFIX/download.out")
    AFTER_EACH=remove_download rounds curlbridge-async libcurl-easy libcurl-multi libcurl-multi-16k urlsession-sync ahc
}

workload_thousand() {
    WORKLOAD=5-1000-in-flight-h1 URL=http://127.0.0.1:$HTTP_PORT/small
    REQUESTS=$(scaled 5000) CONCURRENCY=1000 EXTRA=()
    if [ "$REQUESTS" -lt 1000 ]; then REQUESTS=1000; fi
    rounds curlbridge-async curlbridge-async-executor curlbridge-callback libcurl-multi libcurl-multi-fresh swift-floor-async \
        swift-floor-async-executor swift-floor-callback urlsession-async ahc
}

workload_64k() {
    WORKLOAD=6-64k-64-in-flight-h1 URL=http://127.0.0.1:$HTTP_PORT/64k
    REQUESTS=$(scaled 10000) CONCURRENCY=64 EXTRA=()
    wrk_ceiling 64
    rounds curlbridge-async curlbridge-async-executor curlbridge-callback libcurl-multi libcurl-multi-fresh libcurl-multi-fresh-collect \
        swift-floor-async swift-floor-async-executor swift-floor-callback urlsession-async ahc
}

# A slow consumer: the body streamed to a reader that takes 10 MB/s (sleeping between chunks);
# what matters is the peak RSS (backpressure must hold the transfer back). SLOW_REPEATS rounds
# (1 by default: each run takes 21 s at full size, and the rate is fixed by the consumer).
workload_slow_consumer() {
    WORKLOAD=7-slow-consumer-10mbps URL=http://127.0.0.1:$HTTP_PORT/slow REQUESTS=1 CONCURRENCY=1
    EXTRA=(--stream --output /dev/null --consume-rate 10000000)
    REPEATS=$SLOW_REPEATS rounds curlbridge-async curlbridge-blocking curlbridge-callback libcurl-easy urlsession-sync ahc
}

# One large upload from a file (the server's /big, in the page cache) to bench-upload-sink, which
# reads it to the end, discards it and answers with the count (see server.sh).
workload_upload() {
    WORKLOAD=8-upload-from-file URL=http://127.0.0.1:$SINK_PORT/upload REQUESTS=1 CONCURRENCY=1
    EXTRA=(--upload "$SERVER_PREFIX/www/big")
    rounds curlbridge-async curlbridge-blocking curlbridge-callback libcurl-easy libcurl-multi libcurl-multi-512k-upload \
        urlsession-sync ahc
}

# 200 sequential GETs, each on a new TLS connection with a full handshake (the server closes every
# connection and resumes no session): a client's first request to a new https host, every time.
# Every client trusts the system store, here the machine's bundle with the test CA appended,
# bind-mounted over it in a private mount namespace (no other process sees it).
workload_new_tls_connections() {
    WORKLOAD=9-new-tls-connections URL=https://127.0.0.1:$FRESH_TLS_PORT/small
    REQUESTS=$(scaled 200) CONCURRENCY=1 EXTRA=()
    SYSTEM_TRUST_BUNDLE=$PREFIX/system-and-test-ca.pem
    cat "$SYSTEM_BUNDLE" "$CA_PEM" >"$SYSTEM_TRUST_BUNDLE"
    rounds curlbridge-blocking curlbridge-async curlbridge-callback libcurl-easy libcurl-easy-ca-path swift-floor-blocking \
        swift-floor-async swift-floor-callback urlsession-sync ahc
    SYSTEM_TRUST_BUNDLE=
}
