import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// An HTTP test server on loopback, started inside the test process (or an example's), so tests
/// and examples need no network.
///
/// Listeners, all on 127.0.0.1 with random free ports:
/// - ``httpPort``: plaintext HTTP/1.1 (keep-alive, pipelining).
/// - ``httpsPort``: TLS with a certificate signed by ``certificateAuthorityPEM``; ALPN picks
///   HTTP/2 (`h2`, up to 256 concurrent streams) or HTTP/1.1.
/// - ``stallPort``: raw TCP that accepts, reads and discards, and never writes.
/// - ``unixSocketPath``: plaintext HTTP/1.1 on a Unix domain socket, with the same routes.
/// - on demand, ``startTLSListener(_:)``: TLS that presents one ``TLSScenario`` (expired, wrong
///   host, self-signed, unknown CA, TLS 1.2 only, client certificate required), counting the
///   application bytes each connection received.
///
/// Routes (any method; `N` and `ms` are non-negative integers; unknown paths get `404`, malformed
/// or out-of-range parameters `400`):
/// - `/echo`, `/echo/…`: `200` with the JSON ``EchoReply`` of the request.
/// - `/status/N`: status `N` (200...599) with a short text body (none for 204, 304 and `HEAD`).
/// - `/delay/ms`: like `/echo`, after `ms` milliseconds.
/// - `/bytes/N`: `N` bytes with `Content-Length`; byte `i` is `UInt8(i % 251)`.
/// - `/chunked/N`: the same bytes without `Content-Length` (chunked on HTTP/1.1), written in
///   eighths of at most 64 KiB, each flushed.
/// - `/gzip`: gzip-compressed JSON `{"gzipped":true,…}` whatever `Accept-Encoding` says, with
///   `X-Uncompressed-Length`.
/// - `/drip?bytes=N&interval=ms&delay=ms`: after `delay` (default 0) the headers with
///   `Content-Length: N` (default 10), then one `*` every `interval` (default 100).
/// - `/close-mid-body`: announces 1000 bytes, sends 100, closes the connection (HTTP/2: resets the stream).
/// - `/never-respond`: reads the request and never answers.
/// - `/basic-auth/USER/PASSWORD`, `/bearer-auth/TOKEN`, `/digest-auth/USER/PASSWORD`,
///   `/ntlm-auth/USER`: the routes of `AuthRoutes` in this module.
/// - `/token/resource?realm=R&hold=N`, `/token/refresh?realm=R`: bearer tokens that rotate, with
///   server-side state per realm; see `TokenRoutes` in this module, ``setValidToken(_:realm:)``,
///   ``tokenRequests(realm:)`` and ``tokenRefreshes(realm:)``.
/// - `/response-headers?Name=value&…`: `200` `"ok"` with each (percent-decoded) pair as a header.
/// - `/redirect-to?url=…&status=302`: the status (300...399, default 302) with `Location: url`;
///   `set-cookie=…` adds that `Set-Cookie`, `delay=ms` answers late, `body-bytes=N` sends `N`
///   pattern bytes as the redirect's body.
/// - `/redirect/N`: a `302` to the relative `/redirect/N-1` (N in 0...100); `/redirect/0` answers
///   like `/echo`.
/// - `/redirect-loop`: a `302` to itself.
/// - `/json`: `{"id":42,"name":"CurlBridge"}`.
/// - `/multipart`: parses a `multipart/form-data` body with multipart-kit and answers the JSON
///   ``MultipartReply`` (each part's headers, name, filename, type, size and bytes).
/// - `/resource/N?version=V`: a download like a file on a static server, `N` bytes (as for
///   `/bytes/N`) where byte `i` is `UInt8((i + V) % 251)` (`V` in 0...100000, default 1; version 0
///   is the `/bytes/N` body), streamed with backpressure. Headers: `Content-Type:
///   application/octet-stream`, `Accept-Ranges: bytes`, `ETag: "res-N-vV"`, `Last-Modified:`
///   Mon, 01 Jan 2024 00:00:00 GMT plus `V` days, and `Date:` now. One `Range: bytes=A-` or `bytes=A-B` gets `206`
///   with `Content-Range: bytes A-B/N` and bytes `A...B` of the version (`B` clamped to `N - 1`);
///   `A >= N` gets `416` with `Content-Range: bytes */N` and no body; any other `Range` (several,
///   suffix, `B < A`, malformed) is ignored: `200` with the whole body. With `If-Range`, the range
///   is honoured only if `If-Range` equals the strong `ETag` or the `Last-Modified` exactly, else
///   `200` whole. `HEAD` gets the headers `GET` would. Switches:
///   - `weak-etag=1`: `ETag: W/"res-N-vV"`, which never satisfies `If-Range`;
///   - `no-etag=1`: `Last-Modified` without an `ETag`;
///   - `no-validators=1`: neither `ETag` nor `Last-Modified`, so `If-Range` never matches;
///   - `tag=NAME`: `ETag: "NAME"` for every size and version (two resources under one tag);
///   - `just-modified=1`: `Date` one second after `Last-Modified` (a weak date);
///   - `ignore-range=1`: `Range` is ignored (always `200` whole) and no `Accept-Ranges`;
///   - `ignore-if-range=1`: `Range` is honoured whatever `If-Range` says (a broken cache or CDN);
///   - `basic=TOKEN`: `401` with a Basic challenge unless the request has `Authorization: Basic TOKEN`;
///   - `cut=K`: after `K` bytes of this response's body (counted from `A` for a range) the
///     connection is closed (HTTP/2: the stream reset), though `Content-Length` announced all;
///     a `K` at or past the body's length cuts nothing.
///   - `stall-after=K`: after `K` bytes of this response's body nothing more is sent and the
///     connection stays open, until the client gives up.
/// - `/upload-sink`: takes the request body in as it arrives without keeping it (any size in
///   constant memory) and answers the JSON ``UploadSinkReply``: its length and SHA-256, the
///   request's `Content-Length` and `Transfer-Encoding`, connection number and HTTP version.
///   Parameters:
///   - `close-after=K`: once `K` body bytes have arrived the connection is closed (HTTP/2: the
///     stream reset) without an answer;
///   - `close-if-reused=1`: a request that is not the first on its HTTP/1.1 connection gets the
///     connection shut at once on its head, with nothing sent (the server half-closes, drops what
///     the client still sends, and closes when the client does), so the client retries on a new
///     connection, where it is served; never applies on HTTP/2;
///   - `delay=ms`: wait that long after the body before answering (default 0).
///
/// Any route counts a request whose query has `count=K` under `K`: see ``requestCount(key:)``; a
/// `/drip` answering one is counted until it stops: see ``openDripCount(key:)``; the body bytes
/// of a pattern route (`/resource/N`, `/bytes/N`, `/chunked/N`) answering one are summed: see
/// ``bytesServed(key:)``.
///
/// Your own routes come first: see ``route(_:method:respond:)``.
///
/// The server owns a two-thread event loop group. Call ``shutdown()`` (or ``shutdownAndWait()``)
/// when done: it closes the listeners and every open connection and stops the threads.
public final class TestServer: Sendable {
    /// The plaintext HTTP/1.1 port.
    public let httpPort: Int
    /// The TLS port serving HTTP/2 and HTTP/1.1.
    public let httpsPort: Int
    /// The port that accepts TCP connections and never sends a byte.
    public let stallPort: Int
    /// `http://127.0.0.1:<httpPort>/`.
    public let httpURL: URL
    /// `https://127.0.0.1:<httpsPort>/`.
    public let httpsURL: URL
    /// The Unix domain socket serving plaintext HTTP/1.1, under `/tmp`; removed
    /// at shutdown.
    public let unixSocketPath: String

    /// PEM of the test CA that signed the server certificate; clients trust this to verify the
    /// TLS port (the certificate covers `127.0.0.1` and `localhost`).
    public static let certificateAuthorityPEM: String = TestCertificates.certificateAuthority

    /// The server public key's pin as libcurl's `CURLOPT_PINNEDPUBLICKEY` takes it
    /// (`sha256//<base64 of the SHA-256 of the DER public key>`).
    public static let serverPublicKeyPin: String = TestCertificates.serverPublicKeyPin

    let group: MultiThreadedEventLoopGroup
    private let listeners: ServerListeners
    private let routes: RegisteredRoutes
    private let isShutDown = Atomic<Bool>(false)

    private init(group: MultiThreadedEventLoopGroup, listeners: ServerListeners, routes: RegisteredRoutes) throws {
        self.group = group
        self.routes = routes
        self.listeners = listeners
        self.httpPort = try Self.port(of: listeners.http)
        self.httpsPort = try Self.port(of: listeners.https)
        self.stallPort = try Self.port(of: listeners.stall)
        self.httpURL = try Self.loopbackURL(scheme: "http", port: self.httpPort)
        self.httpsURL = try Self.loopbackURL(scheme: "https", port: self.httpsPort)
        self.unixSocketPath = listeners.unix.localAddress?.pathname ?? ""
    }

    /// Starts all listeners on 127.0.0.1 with random free ports (bind port 0).
    public static func start() async throws -> TestServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let routes = RegisteredRoutes()
        do {
            let listeners = try await ServerListeners.bind(
                on: group, tlsContext: ServerTLSContext.make(), unixSocketPath: Self.newUnixSocketPath(), routes: routes).get()
            return try TestServer(group: group, listeners: listeners, routes: routes)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Starts all listeners like ``start()``, blocking the calling thread; for synchronous callers
    /// such as worker threads and command-line `main`s.
    @available(*, noasync, message: "use start() from async code")
    public static func startAndWait() throws -> TestServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let routes = RegisteredRoutes()
        do {
            let listeners = try ServerListeners.bind(
                on: group, tlsContext: ServerTLSContext.make(), unixSocketPath: Self.newUnixSocketPath(), routes: routes).wait()
            return try TestServer(group: group, listeners: listeners, routes: routes)
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
    }

    /// Closes the listeners and all open connections (including stalled and never-answered ones)
    /// and stops the server's threads. Later calls do nothing.
    public func shutdown() async throws {
        guard self.beginShutdown() else { return }
        try await self.listeners.close().get()
        unlink(self.unixSocketPath)
        try await self.group.shutdownGracefully()
    }

    /// Shuts down like ``shutdown()``, blocking the calling thread.
    @available(*, noasync, message: "use shutdown() from async code")
    public func shutdownAndWait() throws {
        guard self.beginShutdown() else { return }
        try self.listeners.close().wait()
        unlink(self.unixSocketPath)
        try self.group.syncShutdownGracefully()
    }

    /// Registers a route of your own, answered on every listener but the ``startTLSListener(_:)``
    /// scenario ones (HTTP/1.1, HTTP/2 over TLS, the Unix socket), ahead of the built-in routes.
    ///
    /// ```swift
    /// server.route("/users", method: "POST") { request in
    ///     .text("created \(request.body.count) bytes", status: 201)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - path: The path it answers, exactly (`"/users"`); a trailing `*` answers every path that
    ///     starts with what precedes it (`"/files/*"`). Of several matching routes, the latest
    ///     registered answers.
    ///   - method: The method it answers, e.g. `"GET"`; `nil` for any.
    ///   - respond: Makes the answer, off the server's event loops, from the whole request;
    ///     ``RouteResponse/hangUp`` closes the connection instead.
    public func route(_ path: String, method: String? = nil, respond: @escaping @Sendable (RouteRequest) -> RouteResponse) {
        routes.add(method: method, path: path, respond: respond)
    }

    /// `true` for the first caller only.
    private func beginShutdown() -> Bool {
        !self.isShutDown.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// A fresh socket path, short enough for `sockaddr_un` (108 bytes).
    private static func newUnixSocketPath() -> String {
        "/tmp/curlbridge-\(UUID().uuidString.prefix(8)).sock"
    }

    private static func port(of listener: Channel) throws -> Int {
        guard let port = listener.localAddress?.port else {
            throw TestServerError.listenerHasNoPort
        }
        return port
    }

    private static func loopbackURL(scheme: String, port: Int) throws -> URL {
        guard let url = URL(string: "\(scheme)://127.0.0.1:\(port)/") else {
            throw TestServerError.invalidURL
        }
        return url
    }
}
