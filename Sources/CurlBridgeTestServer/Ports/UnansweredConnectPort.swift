import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port where a TCP connect never completes: a listener with a backlog of one that
/// never accepts, whose one slot this type fills itself. Linux then drops every further SYN, so a
/// client stays in its connecting phase (`SYN_SENT`) until it gives up or is cancelled. For
/// testing connect timeouts and cancelling a request that is still connecting.
public final class UnansweredConnectPort: Sendable {
    private let listener: Int32
    private let filler: Int32
    /// The port.
    public let port: Int

    /// Listens on a free port and fills its backlog.
    ///
    /// - Throws: `POSIXError` if the listener cannot be set up or its backlog filled.
    public init() throws {
        let listener = try LoopbackSocket(listeningWithBacklog: 0)
        // Fill the backlog: this connection completes in the kernel and is never accepted.
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = LoopbackSocket.loopbackAddress(port: listener.port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(filler)
            close(listener.descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        self.listener = listener.descriptor
        self.filler = filler
        port = listener.port
    }

    deinit {
        close(filler)
        close(listener)
    }

    /// `http://127.0.0.1:<port>/`.
    public var url: String { "http://127.0.0.1:\(port)/" }
}
