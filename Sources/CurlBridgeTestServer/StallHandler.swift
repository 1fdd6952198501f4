import NIOCore

/// The whole behaviour of the stall port: read and discard everything, never write.
///
/// A client connecting there sees a successful TCP connect and then silence, which is what
/// TLS-handshake and first-byte timeouts need.
final class StallHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Dropping the buffer is the point: nothing is ever answered.
    }
}
