import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Sits nearest the socket (before any TLS handler) and closes the connection from there, so no
/// handler after it adds a byte: no TLS close_notify, only FIN (or RST with `SO_LINGER` 0).
final class RawSocketClose: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Closes the socket under the handlers after this one. Must run on the channel's event loop.
    func close() {
        context?.close(promise: nil)
    }

    /// Resets the connection: `SO_LINGER` 0, then ``close()``, so the kernel sends RST and no
    /// FIN. Must run on the channel's event loop.
    func reset() {
        guard let options = context?.channel as? SocketOptionProvider else { return close() }
        options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in self.close() }
    }
}
