import NIOCore
import NIOPosix
import NIOSSL

/// The listening sockets of a ``TestServer``: three on 127.0.0.1 with kernel-chosen ports, and
/// one Unix domain socket.
struct ServerListeners: Sendable {
    /// Plaintext HTTP/1.1.
    let http: Channel
    /// TLS with ALPN: HTTP/2 or HTTP/1.1.
    let https: Channel
    /// Raw TCP that never answers.
    let stall: Channel
    /// Plaintext HTTP/1.1 on a Unix domain socket.
    let unix: Channel

    /// Binds all four listeners on `group`; their requests try `routes` first.
    static func bind(
        on group: EventLoopGroup, tlsContext: NIOSSLContext, unixSocketPath: String, routes: RegisteredRoutes
    ) -> EventLoopFuture<ServerListeners> {
        let connections = ConnectionCounter()
        let http = bootstrap(on: group).childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try HTTPPipelines.configureHTTP1(channel, connectionID: connections.next(), routes: routes)
            }
        }
        let https = bootstrap(on: group).childChannelInitializer { channel in
            do {
                return try HTTPPipelines.configureSecure(
                    channel,
                    tlsContext: tlsContext,
                    connectionID: connections.next(),
                    routes: routes
                )
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        let stall = bootstrap(on: group).childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(StallHandler())
            }
        }
        let unix = ServerBootstrap(group: group).childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try HTTPPipelines.configureHTTP1(channel, connectionID: connections.next(), routes: routes)
            }
        }
        return bindLoopback(http)
            .and(bindLoopback(https))
            .and(bindLoopback(stall))
            .and(unix.bind(unixDomainSocketPath: unixSocketPath, cleanupExistingSocketFile: true))
            .map { ServerListeners(http: $0.0.0, https: $0.0.1, stall: $0.1, unix: $1) }
    }

    /// Closes the listeners (not the accepted connections); never fails.
    func close() -> EventLoopFuture<Void> {
        let closed = [self.http, self.https, self.stall, self.unix].map { $0.close() }
        return EventLoopFuture.andAllComplete(closed, on: self.http.eventLoop)
    }

    /// Every test of a run shares one server, and a run starts hundreds of connections within
    /// milliseconds: a backlog of 256 overflowed, and an overflowed listener drops the handshake's
    /// last ACK, so the client believes it connected and waits for an answer that never comes
    /// (a total timeout "with 0 bytes received", a SOCKS5 or proxy failure two hops later). The
    /// kernel caps the backlog at `net.core.somaxconn` (4096 on Debian 12); more accepts per
    /// wake-up empty it faster.
    private static func bootstrap(on group: EventLoopGroup) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.maxMessagesPerRead, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    }

    private static func bindLoopback(_ bootstrap: ServerBootstrap) -> EventLoopFuture<Channel> {
        bootstrap.bind(host: "127.0.0.1", port: 0)
    }
}
