import NIOCore
import NIOPosix

/// The tunnel half of a proxy: a connection to the target whose bytes go back to the client.
enum ProxyRelay {
    /// Connects to `host:port` on `eventLoop` (the client's, so both ends share one thread); what
    /// the target sends is written to `client` and counted in `log` at `record`, and each side's
    /// closing closes the other.
    static func connect(
        host: String, port: Int, on eventLoop: EventLoop, client: Channel, log: ProxyLog, record: Int
    ) -> EventLoopFuture<Channel> {
        ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { upstream in
                upstream.eventLoop.makeCompletedFuture {
                    try upstream.pipeline.syncOperations.addHandler(
                        RelayHandler(partner: client, counted: { log.count(fromTarget: $0, at: record) }))
                }
            }
            .connect(host: host, port: port)
    }
}

/// Writes what one side of a tunnel reads to the other side, and closes the other side when
/// this one closes.
final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let partner: Channel
    private let counted: @Sendable (Int) -> Void

    init(partner: Channel, counted: @escaping @Sendable (Int) -> Void) {
        self.partner = partner
        self.counted = counted
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        counted(bytes.readableBytes)
        partner.writeAndFlush(bytes, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
