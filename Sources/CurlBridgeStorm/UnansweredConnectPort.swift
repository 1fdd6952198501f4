import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port where a TCP connect never completes: a listener with a backlog of one that
/// never accepts, whose one slot this type fills itself. Linux then drops every further SYN, so a
/// client stays in its connecting phase (`SYN_SENT`) until it gives up or is cancelled.
final class UnansweredConnectPort: Sendable {
    private let listener: Int32
    private let filler: Int32
    /// The port.
    let port: Int

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 0) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        // Fill the backlog: this connection completes in the kernel and is never accepted.
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
        }
        guard connected == 0 else {
            close(filler)
            close(listener)
            throw POSIXError(.ECONNREFUSED)
        }
        self.listener = listener
        self.filler = filler
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(filler)
        close(listener)
    }

    /// `http://127.0.0.1:<port>/`.
    var url: String { "http://127.0.0.1:\(port)/" }
}
