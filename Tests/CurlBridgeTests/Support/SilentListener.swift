import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on 127.0.0.1 that never accepts: afterwards, ``connectionAttempts`` tells
/// whether anything tried to connect. Used to prove that refused requests send nothing.
final class SilentListener: Sendable {
    private let descriptor: Int32
    /// The port it listens on.
    let port: Int

    init() throws {
        (descriptor, port) = try bindLoopbackSocket()
        guard listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
    }

    deinit { close(descriptor) }

    /// `http://127.0.0.1:<port>/`.
    var url: String { "http://127.0.0.1:\(port)/" }

    /// How many connections are waiting in the backlog (each accepted and closed when counted).
    func connectionAttempts() -> Int {
        var count = 0
        while true {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { return count }
            close(connection)
            count += 1
        }
    }
}

/// A port on 127.0.0.1 that refuses every connection: bound, so that no other socket (another
/// test's listener, say) can take it while it lives, but not listening.
final class RefusingPort: Sendable {
    private let descriptor: Int32
    /// The port.
    let port: Int

    init() throws {
        (descriptor, port) = try bindLoopbackSocket()
    }

    deinit { close(descriptor) }
}

/// A TCP socket bound to 127.0.0.1 on a free port, and that port.
func bindLoopbackSocket() throws -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    guard bound == 0 else {
        close(descriptor)
        throw POSIXError(.EADDRINUSE)
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}
