#!/usr/bin/env bash
# A 1 GiB multipart/form-data file upload through CurlBridge, measuring the client's peak RSS
# (the file part must stream from disk: the goal is under 64 MiB). The receiver is a small Python
# server on 127.0.0.1 that reads and discards the whole body, then answers with the byte count.
#
#   Benchmarks/multipart-upload.sh              1 GiB
#   SIZE_MIB=64 Benchmarks/multipart-upload.sh  a smaller file
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SIZE_MIB=${SIZE_MIB:-1024}
WORK=$(mktemp -d)
RECEIVER_PID=
cleanup() {
    [ -n "$RECEIVER_PID" ] && kill "$RECEIVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

swift build -c release --package-path "$HERE" --product bench-multipart-upload >&2
fallocate -l "${SIZE_MIB}M" "$WORK/payload.bin" 2>/dev/null || truncate -s "${SIZE_MIB}M" "$WORK/payload.bin"

cat >"$WORK/receiver.py" <<'PY'
import http.server, socketserver, sys
class Drain(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        remaining, total = int(self.headers.get("Content-Length", "0")), 0
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                break
            remaining -= len(chunk)
            total += len(chunk)
        body = str(total).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
with socketserver.TCPServer(("127.0.0.1", 0), Drain) as server:
    print(server.server_address[1], flush=True)
    server.serve_forever()
PY
python3 "$WORK/receiver.py" >"$WORK/port" &
RECEIVER_PID=$!
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
PORT=$(head -1 "$WORK/port")

"$(swift build -c release --package-path "$HERE" --show-bin-path)/bench-multipart-upload" \
    --url "http://127.0.0.1:$PORT/upload" --file "$WORK/payload.bin"
