import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 that refuses every connection: bound, so that no other socket can take
/// it while it lives, but not listening.
final class RefusingPort: Sendable {
    private let descriptor: Int32
    /// The port.
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// `https://127.0.0.1:<port>/`.
    func url() throws -> URL {
        guard let url = URL(string: "https://127.0.0.1:\(port)/") else { throw URLError(.badURL) }
        return url
    }
}
