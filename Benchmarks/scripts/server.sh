# shellcheck shell=bash
# Sourced by run.sh: a private nginx on two random loopback ports, with its own test CA, and the
# upload workload's receiver.
#   server_prepare PREFIX   certificates, files and nginx.conf under PREFIX
#   server_start            starts nginx in the foreground mode, in the background (NGINX_PID), and
#                           $BIN/bench-upload-sink (SINK_PID, SINK_PORT)
#   server_stop             stops both by PID
# Sets HTTP_PORT, HTTPS_PORT, FRESH_TLS_PORT, CA_PEM, BIG_BYTES, SLOW_BYTES.
# nginx serves /small (100 bytes), /64k, /big (1 GiB × SCALE) and /slow (200 MiB × SCALE), and
# /cached/64k, the same 64 KiB with 'Cache-Control: max-age=3600' (the cache workload); on
# FRESH_TLS_PORT, every response closes its TLS connection and no session is resumed, so each
# request is a client's first to a new https host (workload 9).
#
# Uploads go to bench-upload-sink, not nginx: nginx answers a 'return' location at once and
# discards the body in the background; curl keeps sending after that early 200, but
# AsyncHTTPClient takes the finished response as the end and stops sending. The sink answers only
# after the last body byte, with the number of bytes it read, which every client checks.

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

server_make_certificates() {
    local dir=$1
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=CurlBridge benchmark CA" \
        -keyout "$dir/ca.key" -out "$dir/ca.pem" -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$dir/server.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
        -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null
    CA_PEM=$dir/ca.pem
}

server_make_files() {
    local www=$1
    mkdir -p "$www"
    head -c 100 /dev/zero | tr '\0' 'x' >"$www/small"
    head -c 65536 /dev/urandom >"$www/64k"
    # Sparse: holes read as zeros from the page cache, so the disk is not what is measured.
    BIG_BYTES=$(python3 -c "print(max(16 << 20, int((1 << 30) * float('${SCALE}'))))")
    fallocate -l "$BIG_BYTES" "$www/big" 2>/dev/null || truncate -s "$BIG_BYTES" "$www/big"
    cat "$www/big" >/dev/null  # into the page cache before the first client reads it
    # The slow consumer's body (at 10 MB/s, 200 MiB take 21 s).
    SLOW_BYTES=$(python3 -c "print(max(16 << 20, int((200 << 20) * float('${SCALE}'))))")
    fallocate -l "$SLOW_BYTES" "$www/slow" 2>/dev/null || truncate -s "$SLOW_BYTES" "$www/slow"
}

server_prepare() {
    SERVER_PREFIX=$1
    chmod 755 "$SERVER_PREFIX"
    mkdir -p "$SERVER_PREFIX/logs" "$SERVER_PREFIX/tmp"
    server_make_certificates "$SERVER_PREFIX"
    server_make_files "$SERVER_PREFIX/www"
    HTTP_PORT=$(free_port)
    HTTPS_PORT=$(free_port)
    while [ "$HTTPS_PORT" = "$HTTP_PORT" ]; do HTTPS_PORT=$(free_port); done
    FRESH_TLS_PORT=$(free_port)
    while [ "$FRESH_TLS_PORT" = "$HTTP_PORT" ] || [ "$FRESH_TLS_PORT" = "$HTTPS_PORT" ]; do FRESH_TLS_PORT=$(free_port); done
    cat >"$SERVER_PREFIX/nginx.conf" <<CONF
# One worker: the clients get the other core.
worker_processes 1;
pid $SERVER_PREFIX/nginx.pid;
error_log $SERVER_PREFIX/logs/error.log warn;
daemon off;
worker_rlimit_nofile 16384;
events { worker_connections 8192; }
http {
    access_log off;
    client_body_temp_path $SERVER_PREFIX/tmp/body;
    proxy_temp_path $SERVER_PREFIX/tmp/proxy;
    fastcgi_temp_path $SERVER_PREFIX/tmp/fastcgi;
    uwsgi_temp_path $SERVER_PREFIX/tmp/uwsgi;
    scgi_temp_path $SERVER_PREFIX/tmp/scgi;
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    open_file_cache max=16;
    etag off;
    server {
        listen 127.0.0.1:$HTTP_PORT backlog=4096;
        root $SERVER_PREFIX/www;
        location /cached/ {
            alias $SERVER_PREFIX/www/;
            expires 1h;
        }
    }
    server {
        # nginx 1.22 spells HTTP/2 on the listen line ('http2 on' came in 1.25.1).
        listen 127.0.0.1:$HTTPS_PORT ssl http2 backlog=4096;
        ssl_certificate $SERVER_PREFIX/server.pem;
        ssl_certificate_key $SERVER_PREFIX/server.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        http2_max_concurrent_streams 1024;
        root $SERVER_PREFIX/www;
    }
    server {
        # A new TLS connection for every request, with a full handshake: no keep-alive, no
        # session cache, no tickets.
        listen 127.0.0.1:$FRESH_TLS_PORT ssl backlog=4096;
        ssl_certificate $SERVER_PREFIX/server.pem;
        ssl_certificate_key $SERVER_PREFIX/server.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache off;
        ssl_session_tickets off;
        keepalive_timeout 0;
        root $SERVER_PREFIX/www;
    }
}
CONF
}

server_start() {
    "$NGINX" -p "$SERVER_PREFIX" -c "$SERVER_PREFIX/nginx.conf" -e "$SERVER_PREFIX/logs/error.log" &
    NGINX_PID=$!
    local _
    for _ in $(seq 1 100); do
        if curl -fsS -o /dev/null "http://127.0.0.1:$HTTP_PORT/small" 2>/dev/null &&
            curl -fsS -o /dev/null --cacert "$CA_PEM" "https://127.0.0.1:$HTTPS_PORT/small" 2>/dev/null; then
            sink_start
            return
        fi
        kill -0 "$NGINX_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "nginx did not start; its log:" >&2
    cat "$SERVER_PREFIX/logs/error.log" >&2 || true
    return 1
}

sink_start() {
    rm -f "$SERVER_PREFIX/sink.port"
    "$BIN/bench-upload-sink" --port-file "$SERVER_PREFIX/sink.port" 2>>"$SERVER_PREFIX/logs/sink.log" &
    SINK_PID=$!
    local _
    for _ in $(seq 1 50); do
        if [ -s "$SERVER_PREFIX/sink.port" ]; then
            SINK_PORT=$(cat "$SERVER_PREFIX/sink.port")
            return 0
        fi
        kill -0 "$SINK_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "bench-upload-sink did not start" >&2
    cat "$SERVER_PREFIX/logs/sink.log" >&2 || true
    return 1
}

sink_stop() {
    if [ -n "${SINK_PID:-}" ] && kill -0 "$SINK_PID" 2>/dev/null; then
        kill -TERM "$SINK_PID" 2>/dev/null || true
        wait "$SINK_PID" 2>/dev/null || true
    fi
    SINK_PID=
}

server_stop() {
    sink_stop
    if [ -n "${NGINX_PID:-}" ] && kill -0 "$NGINX_PID" 2>/dev/null; then
        kill -QUIT "$NGINX_PID" 2>/dev/null || true
        local _
        for _ in $(seq 1 50); do
            kill -0 "$NGINX_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
    fi
    NGINX_PID=
}
