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
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
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
