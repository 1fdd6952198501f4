import NIOCore
import NIOTLS

/// Closes a connection whose TLS handshake failed the way careful servers close (a "lingering
/// close"): output is shut after the alert, what the client still sends is read and dropped, and
/// the connection closes when the client closes its side.
///
/// Without it, a TLS 1.3 client whose certificate is refused has usually sent its request already
/// (it finishes the handshake first); closing with those bytes unread makes the kernel send a
/// reset, which can destroy the alert before the client reads it, so the client would see
/// "connection reset" instead of the refusal. Placed before the TLS handler (nearest the socket).
/// Only the first close of a connection whose handshake did not complete lingers; any later
/// close (the server's shutdown) closes at once.
final class LingeringClose: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Set by ``HandshakeWatch`` when the handshake succeeded.
    var handshakeCompleted = false
    private var lingering = false

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, !handshakeCompleted, !lingering else {
            context.close(mode: mode, promise: promise)
            return
        }
        lingering = true
        context.channel.closeFuture.cascade(to: promise)
        // A channel that cannot half-close is closed whole.
        let channel = context.channel
        context.close(mode: .output).assumeIsolated().whenFailure { _ in
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !lingering else { return }  // the refused client's bytes: dropped
        context.fireChannelRead(data)
    }

    /// Tells `lingeringClose` when the TLS handshake completes; placed after the TLS handler.
    final class HandshakeWatch: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer

        private let lingeringClose: LingeringClose

        init(_ lingeringClose: LingeringClose) {
            self.lingeringClose = lingeringClose
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event {
                lingeringClose.handshakeCompleted = true
            }
            context.fireUserInboundEventTriggered(event)
        }
    }
}
