import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to 127.0.0.1 on a free port: what ``RefusingPort``, ``SilentListener`` and
/// ``UnansweredConnectPort`` start from, and a start for a scripted server of your own.
public struct LoopbackSocket: Sendable {
    /// The socket's descriptor; its owner closes it.
    public let descriptor: Int32
    /// The port it is bound to.
    public let port: Int

    /// Binds a new socket, then listens with `backlog` unless it is `nil`.
    ///
    /// - Parameter backlog: The listen backlog; `nil` binds without listening.
    ///
    /// - Throws: `POSIXError(.EADDRINUSE)` if binding or listening fails (the socket is closed).
    public init(listeningWithBacklog backlog: Int32? = nil) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopbackAddress(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard ready, backlog.map({ listen(descriptor, $0) == 0 }) ?? true else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `127.0.0.1:port` as a socket address.
    public static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }
}
