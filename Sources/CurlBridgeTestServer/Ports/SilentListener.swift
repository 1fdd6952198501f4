import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on 127.0.0.1 that never accepts: afterwards, ``connectionAttempts()`` tells
/// whether anything tried to connect. For proving that a refused request sends nothing.
public final class SilentListener: Sendable {
    private let descriptor: Int32
    /// The port it listens on.
    public let port: Int

    /// Listens on a free port.
    ///
    /// - Throws: `POSIXError` if no socket could be bound or listen.
    public init() throws {
        let socket = try LoopbackSocket(listeningWithBacklog: 16)
        (descriptor, port) = (socket.descriptor, socket.port)
        _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
    }

    deinit { close(descriptor) }

    /// `http://127.0.0.1:<port>/`.
    public var url: String { "http://127.0.0.1:\(port)/" }

    /// How many connections are waiting in the backlog (each accepted and closed when counted).
    public func connectionAttempts() -> Int {
        var count = 0
        while true {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { return count }
            close(connection)
            count += 1
        }
    }
}
