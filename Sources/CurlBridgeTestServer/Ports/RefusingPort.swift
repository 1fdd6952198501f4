import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 that refuses every connection: bound, so that no other socket (another
/// test's listener, say) can take it while it lives, but not listening. For testing what a client
/// does when a connection is refused (`RequestError` with code `connectFailed` in CurlBridge).
public final class RefusingPort: Sendable {
    private let descriptor: Int32
    /// The port.
    public let port: Int

    /// Reserves a free port.
    ///
    /// - Throws: `POSIXError` if no socket could be bound.
    public init() throws {
        let socket = try LoopbackSocket()
        (descriptor, port) = (socket.descriptor, socket.port)
    }

    deinit { close(descriptor) }
}
