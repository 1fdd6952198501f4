import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A proxy on loopback for tests, started inside the test process, that records everything it
/// is asked to relay (``records``).
///
/// Listeners, all on 127.0.0.1 with random free ports:
/// - ``httpPort``: an HTTP proxy. An `http://` request in absolute form is forwarded to its
///   origin (one request per connection: `Proxy-Authorization`, `Proxy-Connection`, `Connection`
///   and `Keep-Alive` are removed, `Connection: close` added, the answer relayed as is);
///   `CONNECT host:port` opens a tunnel.
/// - ``httpsPort``: the same proxy behind TLS, with the ``TestServer`` certificate (valid for
///   `127.0.0.1` and `localhost`, signed by ``TestServer/certificateAuthorityPEM``).
/// - ``socksPort``: a SOCKS5 proxy (`CONNECT` to IPv4, IPv6 or domain-name targets).
///
/// With ``credentials``, every listener demands them: HTTP `Proxy-Authorization: Basic` (else
/// `407` with `Proxy-Authenticate`), SOCKS5 username/password authentication (else the
/// connection is refused). With an upstream override, every target is reached at that address
/// instead of its own — so tests can use any host name (`www.example.co.uk`) with no DNS.
public final class TestProxy: Sendable {
    /// What the handlers share.
    struct Settings: Sendable {
        let credentials: (user: String, password: String)?
        let upstream: (host: String, port: Int)?
        let log: ProxyLog

        /// The user named by a `Proxy-Authorization` value and whether it is accepted.
        func checkBasic(_ authorization: String?) -> (user: String?, accepted: Bool) {
            let presented = authorization.flatMap { value -> (String, String)? in
                guard value.lowercased().hasPrefix("basic "),
                      let decoded = Data(base64Encoded: String(value.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                      let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
                else { return nil }
                return (String(text[..<colon]), String(text[text.index(after: colon)...]))
            }
            guard let credentials else { return (presented?.0, true) }
            return (presented?.0, presented?.0 == credentials.user && presented?.1 == credentials.password)
        }
    }

    /// The HTTP proxy port.
    public let httpPort: Int
    /// The HTTPS proxy port (TLS to the proxy).
    public let httpsPort: Int
    /// The SOCKS5 port.
    public let socksPort: Int
    /// The user name and password every listener demands, if any.
    public var credentials: (user: String, password: String)? { settings.credentials }

    private let settings: Settings
    private let group: MultiThreadedEventLoopGroup
    private let listeners: [Channel]
    private let isShutDown = Synchronization.Atomic<Bool>(false)

    /// Starts a proxy on 127.0.0.1 with random free ports.
    ///
    /// - Parameters:
    ///   - credentials: User name and password to demand; `nil` (none) by default.
    ///   - upstream: Where to connect whatever the target (`host`, `port`); `nil` (the target
    ///     itself) by default.
    public static func start(
        credentials: (user: String, password: String)? = nil, upstream: (host: String, port: Int)? = nil
    ) async throws -> TestProxy {
        let settings = Settings(credentials: credentials, upstream: upstream, log: ProxyLog())
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let tls = try makeTLSContext()
            let http = try await bind(on: group) { channel in
                try channel.pipeline.syncOperations.addHandler(HTTPProxyHandler(settings: settings, overTLS: false))
            }
            let https = try await bind(on: group) { channel in
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                try channel.pipeline.syncOperations.addHandler(HTTPProxyHandler(settings: settings, overTLS: true))
            }
            let socks = try await bind(on: group) { channel in
                try channel.pipeline.syncOperations.addHandler(SOCKS5Handler(settings: settings))
            }
            return try TestProxy(settings: settings, group: group, listeners: [http, https, socks])
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Starts a proxy like ``start(credentials:upstream:)``, blocking the calling thread; for
    /// synchronous callers such as command-line `main`s.
    @available(*, noasync, message: "use start(credentials:upstream:) from async code")
    public static func startAndWait(
        credentials: (user: String, password: String)? = nil, upstream: (host: String, port: Int)? = nil
    ) throws -> TestProxy {
        let started = NIOLockedValueBox<Result<TestProxy, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<TestProxy, any Error>
            do { result = .success(try await start(credentials: credentials, upstream: upstream)) } catch { result = .failure(error) }
            started.withLockedValue { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = started.withLockedValue({ $0 }) else { throw TestServerError.listenerHasNoPort }
        return try result.get()
    }

    private init(settings: Settings, group: MultiThreadedEventLoopGroup, listeners: [Channel]) throws {
        self.settings = settings
        self.group = group
        self.listeners = listeners
        let ports = listeners.compactMap { $0.localAddress?.port }
        guard ports.count == 3 else { throw TestServerError.listenerHasNoPort }
        (httpPort, httpsPort, socksPort) = (ports[0], ports[1], ports[2])
    }

    /// Every request the proxy was asked to relay so far, in arrival order.
    public var records: [ProxyRecord] { settings.log.all }

    /// Closes the listeners and every connection and stops the proxy's thread. Later calls do nothing.
    public func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for listener in listeners { try? await listener.close() }
        try await group.shutdownGracefully()
    }

    private static func bind(
        on group: EventLoopGroup, _ configure: @escaping @Sendable (Channel) throws -> Void
    ) async throws -> Channel {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try configure(channel) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// TLS for the HTTPS proxy: the test server's certificate, HTTP/1.1 only.
    private static func makeTLSContext() throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(bytes: Array(TestCertificates.serverCertificate.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(TestCertificates.serverPrivateKey.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        configuration.applicationProtocols = ["http/1.1"]
        // Closing does not wait for the client's close_notify: a proxy shutting down under open
        // tunnels would otherwise wait five seconds for each.
        configuration.shutdownTimeout = .zero
        return try NIOSSLContext(configuration: configuration)
    }
}
