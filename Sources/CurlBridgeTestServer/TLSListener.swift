import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A TLS listener of one ``TLSScenario`` on 127.0.0.1, started by
/// ``TestServer/startTLSListener(_:)`` for one test, with counters that show what got through.
public final class TLSListener: Sendable {
    /// What the listener presents.
    public let scenario: TLSScenario
    /// The listening port.
    public let port: Int
    private let channel: Channel
    private let counters: TLSListenerCounters

    fileprivate init(scenario: TLSScenario, channel: Channel, counters: TLSListenerCounters) throws {
        guard let port = channel.localAddress?.port else { throw TestServerError.listenerHasNoPort }
        self.scenario = scenario
        self.channel = channel
        self.counters = counters
        self.port = port
    }

    /// `https://<host>:<port>/`; `host` is `127.0.0.1` unless given (the certificates also cover
    /// `localhost`, a different host for a client's pins and connection reuse).
    public func url(host: String = "127.0.0.1") throws -> URL {
        guard let url = URL(string: "https://\(host):\(port)/") else { throw TestServerError.invalidURL }
        return url
    }

    /// TCP connections accepted so far.
    public var connectionsAccepted: Int { counters.bytesByConnection.withLockedValue { $0.count } }

    /// Application bytes received after the TLS handshake on each accepted connection, in the
    /// order they were accepted: 0 for a connection proves that no request byte came over it.
    public var applicationBytesByConnection: [Int] { counters.bytesByConnection.withLockedValue { $0 } }

    /// Application bytes received after a TLS handshake, summed over all connections.
    public var applicationBytesReceived: Int { applicationBytesByConnection.reduce(0, +) }

    /// Stops listening (open connections end with the server's shutdown).
    public func close() async throws {
        try await channel.close()
    }

    /// Binds a listener for `scenario` on `group`.
    static func start(_ scenario: TLSScenario, on group: EventLoopGroup) async throws -> TLSListener {
        let context = try scenario.makeContext()
        let counters = TLSListenerCounters()
        let connections = ConnectionCounter()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                do {
                    let lingeringClose = LingeringClose()
                    try channel.pipeline.syncOperations.addHandler(lingeringClose)
                    return try HTTPPipelines.configureSecure(
                        channel, tlsContext: context, connectionID: connections.next(), routes: RegisteredRoutes(),
                        handlersAfterTLS: [LingeringClose.HandshakeWatch(lingeringClose), ApplicationByteCounter(counters)])
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return try TLSListener(scenario: scenario, channel: channel, counters: counters)
    }
}

extension TestServer {
    /// Starts a TLS listener of `scenario` on 127.0.0.1 with a random port, on the server's
    /// threads; close it with ``TLSListener/close()`` (the server's shutdown also ends it).
    public func startTLSListener(_ scenario: TLSScenario) async throws -> TLSListener {
        try await TLSListener.start(scenario, on: group)
    }
}

/// What a ``TLSListener`` counts: the decrypted bytes received on each accepted connection.
final class TLSListenerCounters: Sendable {
    let bytesByConnection = NIOLockedValueBox<[Int]>([])
}

/// Counts the decrypted bytes that pass from the TLS handler to HTTP on one connection; forwards
/// everything.
final class ApplicationByteCounter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let counters: TLSListenerCounters
    /// The connection's index in ``TLSListenerCounters/bytesByConnection``.
    private let connection: Int

    /// A counter for a newly accepted connection.
    init(_ counters: TLSListenerCounters) {
        self.counters = counters
        self.connection = counters.bytesByConnection.withLockedValue { counts in
            counts.append(0)
            return counts.count - 1
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let count = Self.unwrapInboundIn(data).readableBytes
        counters.bytesByConnection.withLockedValue { $0[connection] += count }
        context.fireChannelRead(data)
    }
}
