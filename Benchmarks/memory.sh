#!/usr/bin/env bash
# Where the resident memory of CurlBridge's benchmark client goes, mapping by mapping, beside raw
# libcurl's (MEMORY.md): a process making a few requests (its smaps when it exits) and 1,000
# requests in flight (its smaps at its highest resident set). Uses the release clients that
# run.sh builds, and a private nginx on loopback (scripts/server.sh).
#
#   Benchmarks/memory.sh                   both accounts
#   FEW=5 THOUSAND=5000 Benchmarks/memory.sh   requests of each (5 and 5,000 by default)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=$HERE/.build/release
FEW=${FEW:-5}
THOUSAND=${THOUSAND:-5000}
# shellcheck disable=SC2034  # read by scripts/server.sh: the smallest files it makes
SCALE=0.01
NGINX=/usr/sbin/nginx
# shellcheck source=scripts/server.sh
. "$HERE/scripts/server.sh"

PREFIX=$(mktemp -d /tmp/curlbridge-memory.XXXXXX)
cleanup() {
    if [ -n "${NGINX_PID:-}" ]; then kill "$NGINX_PID" 2>/dev/null || true; fi
    rm -rf "$PREFIX"
}
trap cleanup EXIT
for product in bench-curlbridge bench-libcurl; do
    [ -x "$BIN/$product" ] || swift build -c release --package-path "$HERE" --product "$product" >&2
done
cc -shared -fPIC -O2 -o "$PREFIX/smaps-at-exit.so" "$HERE/scripts/memory/smaps-at-exit.c"
chmod 755 "$PREFIX"
mkdir -p "$PREFIX/server"
server_prepare "$PREFIX/server" >/dev/null
"$NGINX" -p "$PREFIX/server" -c "$PREFIX/server/nginx.conf" -e "$PREFIX/server/logs/error.log" &
NGINX_PID=$!
for _ in $(seq 1 100); do curl -fsS -o /dev/null "http://127.0.0.1:$HTTP_PORT/small" 2>/dev/null && break; sleep 0.1; done

URL=http://127.0.0.1:$HTTP_PORT/small
RAW=("$BIN/bench-libcurl" --decode --cookies --no-ca-path)

echo "## A process making $FEW sequential requests (smaps at exit, KiB)"
echo
for style in blocking async callback; do
    SMAPS_OUT=$PREFIX/few-$style LD_PRELOAD=$PREFIX/smaps-at-exit.so \
        "$BIN/bench-curlbridge" --style "$style" --url "$URL" --requests "$FEW" --concurrency 1 >/dev/null
done
SMAPS_OUT=$PREFIX/few-raw LD_PRELOAD=$PREFIX/smaps-at-exit.so \
    "${RAW[@]}" --mode easy --url "$URL" --requests "$FEW" --concurrency 1 >/dev/null
python3 "$HERE/scripts/memory/by-mapping.py" "libcurl-easy=$PREFIX/few-raw.smaps" \
    "blocking=$PREFIX/few-blocking.smaps" "async=$PREFIX/few-async.smaps" "callback=$PREFIX/few-callback.smaps"

echo
echo "## $THOUSAND requests, 1,000 in flight (smaps at the highest resident set, KiB)"
echo
for style in async callback; do
    python3 "$HERE/scripts/memory/smaps-at-peak.py" "$PREFIX/k-$style" \
        "$BIN/bench-curlbridge" --style "$style" --url "$URL" --requests "$THOUSAND" --concurrency 1000
done
python3 "$HERE/scripts/memory/smaps-at-peak.py" "$PREFIX/k-raw" \
    "${RAW[@]}" --mode multi --fresh-handle --url "$URL" --requests "$THOUSAND" --concurrency 1000
python3 "$HERE/scripts/memory/by-mapping.py" "libcurl-multi-fresh=$PREFIX/k-raw.smaps" \
    "async=$PREFIX/k-async.smaps" "callback=$PREFIX/k-callback.smaps"
echo
for which in raw async callback; do
    echo "threads at the peak ($which): $(awk '/^Threads:/{print $2}' "$PREFIX/k-$which.status")"
done
