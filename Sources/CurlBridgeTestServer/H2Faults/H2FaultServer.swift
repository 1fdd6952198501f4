import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// A scripted HTTP/2 server over TLS (ALPN `h2` only, the test server's certificate) that
/// misbehaves in one way, its ``H2Fault``, at the frame level: resets, GOAWAY while streams are
/// open, refused streams, header blocks that never end, bad DATA, cuts and stalls.
///
/// Started by ``TestServer/startH2FaultServer(_:)`` on 127.0.0.1 with a random port, one per
/// fault and test. It writes raw frames and HPACK literals itself (NIOHTTP2 would refuse to
/// misbehave) and records every stream it saw and what it did with it (``streams``), so a test
/// can prove that a request refused by GOAWAY was sent again once, and none processed twice.
public final class H2FaultServer: Sendable {
    /// CONTINUATION frames after which a ``H2Fault/continuationFlood`` stops and closes the
    /// connection: about 100 MB, far beyond what any client should accept, so a client that
    /// never stops reading still ends instead of hanging a test.
    public static let continuationFloodLimit = 100_000

    /// Requests whose path starts with this (e.g. `/ok`, `/ok-1`) are answered normally whatever
    /// the fault: a test warms a connection with them so that the fault meets a reused one.
    public static let sparedPathPrefix = "/ok"

    /// How the server misbehaves.
    public let fault: H2Fault
    /// The listening port.
    public let port: Int
    private let channel: Channel
    private let ledger: H2FaultLedger

    private init(fault: H2Fault, channel: Channel, ledger: H2FaultLedger) throws {
        guard let port = channel.localAddress?.port else { throw TestServerError.listenerHasNoPort }
        self.fault = fault
        self.channel = channel
        self.ledger = ledger
        self.port = port
    }

    /// `https://127.0.0.1:<port>/` followed by `path` (without a leading slash).
    public func url(_ path: String = "") throws -> URL {
        guard let url = URL(string: "https://127.0.0.1:\(port)/\(path)") else { throw TestServerError.invalidURL }
        return url
    }

    /// TCP connections accepted so far.
    public var connectionsAccepted: Int { ledger.connections }

    /// Every request stream the server decided on, in that order (a stream still open, or a held
    /// GOAWAY request, is not there yet).
    public var streams: [H2StreamRecord] { ledger.streams }

    /// The records of requests for `path` (e.g. `/a`).
    public func streams(path: String) -> [H2StreamRecord] { streams.filter { $0.path == path } }

    /// CONTINUATION frames of ``H2Fault/continuationFlood`` that reached the socket so far.
    public var continuationFramesSent: Int { ledger.continuationFrames }

    /// Stops listening and closes the listener (open connections end with the server's shutdown
    /// or when their client closes them).
    public func close() async throws {
        try await channel.close()
    }

    /// Binds a listener for `fault` on `group`.
    static func start(_ fault: H2Fault, on group: EventLoopGroup) async throws -> H2FaultServer {
        // A closed connection's TLS handler (and the response bytes the client never read) stays
        // alive until its shutdown timeout fires, even after the socket closed: 5 s by default,
        // which would make a process that runs faults in a loop look as if it leaked.
        let context = try ServerTLSContext.make(applicationProtocols: ["h2"], shutdownTimeout: .milliseconds(100))
        let refusals = if case .refuseStreams(let count) = fault { count } else { 0 }
        let ledger = H2FaultLedger(refusals: refusals)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    let rawClose = RawSocketClose()
                    try pipeline.addHandler(rawClose)
                    try pipeline.addHandler(NIOSSLServerHandler(context: context))
                    try pipeline.addHandler(H2FaultConnection(fault: fault, ledger: ledger, rawClose: rawClose))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return try H2FaultServer(fault: fault, channel: channel, ledger: ledger)
    }
}

extension TestServer {
    /// Starts an ``H2FaultServer`` for `fault` on 127.0.0.1 with a random port, on the server's
    /// threads; close it with ``H2FaultServer/close()`` (the server's shutdown also ends it).
    /// Clients reach it over `https` trusting ``certificateAuthorityPEM``.
    public func startH2FaultServer(_ fault: H2Fault) async throws -> H2FaultServer {
        try await H2FaultServer.start(fault, on: group)
    }
}
