import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A scripted HTTP/1.1 server on loopback for fault tests: every ``Fault`` on a plaintext port
/// and on a TLS port (the test CA's server certificate, HTTP/1.1 only), writing exactly the
/// bytes each fault names, and recording what it received per `key` query parameter.
///
/// ```
/// let server = try await FaultServer.start()
/// let url = server.url(.closeBeforeResponse, tls: true, key: "k", ["mode": "rst"])
/// … send, then: server.record(key: "k").requests.count
/// ```
///
/// A TLS client hello on the plaintext port gets a plaintext HTTP answer (see
/// ``plaintextOnTLSURL``). Call ``shutdown()`` when done.
public final class FaultServer: Sendable {
    /// The plaintext port.
    public let port: Int
    /// The TLS port.
    public let tlsPort: Int
    private let group: MultiThreadedEventLoopGroup
    private let channels: [Channel]
    private let ledger: FaultLedger

    private init(group: MultiThreadedEventLoopGroup, channels: [Channel], ledger: FaultLedger) throws {
        guard let port = channels[0].localAddress?.port, let tlsPort = channels[1].localAddress?.port else {
            throw TestServerError.listenerHasNoPort
        }
        self.group = group
        self.channels = channels
        self.ledger = ledger
        self.port = port
        self.tlsPort = tlsPort
    }

    /// Starts both listeners on 127.0.0.1 with random free ports, on two threads of their own.
    /// The compression bombs are made first, here: made on first use they would hold an event
    /// loop for a second of a debug build while other tests' timeouts run.
    public static func start() async throws -> FaultServer {
        _ = CompressionBomb.allCases.map(\.encoded.count)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let ledger = FaultLedger()
        do {
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(TestCertificates.serverCertificate.utf8), format: .pem))],
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(TestCertificates.serverPrivateKey.utf8), format: .pem)))
            configuration.applicationProtocols = ["http/1.1"]
            let tlsContext = try NIOSSLContext(configuration: configuration)
            let plain = try await bind(on: group, ledger: ledger, tlsContext: nil)
            let secure = try await bind(on: group, ledger: ledger, tlsContext: tlsContext)
            return try FaultServer(group: group, channels: [plain, secure], ledger: ledger)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private static func bind(on group: EventLoopGroup, ledger: FaultLedger, tlsContext: NIOSSLContext?) async throws -> Channel {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    let rawClose = RawSocketClose()
                    try pipeline.addHandler(rawClose)
                    if let tlsContext { try pipeline.addHandler(NIOSSLServerHandler(context: tlsContext)) }
                    try pipeline.addHandler(
                        FaultConnectionHandler(ledger: ledger, rawClose: rawClose, answersTLSInPlaintext: tlsContext == nil))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// The URL of `fault`, on the TLS port if `tls`, with `key` and the other query parameters.
    public func url(_ fault: Fault, tls: Bool = false, key: String, _ parameters: [String: String] = [:]) -> String {
        let query = ([("key", key)] + parameters.sorted { $0.key < $1.key }).map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        return "\(tls ? "https" : "http")://127.0.0.1:\(tls ? tlsPort : port)\(fault.path)?\(query)"
    }

    /// An `https` URL on the plaintext port: the client's hello is answered by a plaintext HTTP
    /// `400` and a close.
    public var plaintextOnTLSURL: String { "https://127.0.0.1:\(port)/fault/ok" }

    /// Connections open now: 0 once every client connection has closed on the server's side too.
    public var openConnections: Int { ledger.openConnections }

    /// What the server received and saw for `key` so far.
    public func record(key: String) -> FaultRecord {
        ledger.record(key: key)
    }

    /// Closes the listeners and every connection, and stops the server's thread.
    public func shutdown() async throws {
        for channel in channels { try? await channel.close() }
        try await group.shutdownGracefully()
    }
}
