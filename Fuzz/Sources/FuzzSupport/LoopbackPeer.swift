import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A one-thread HTTP/1.1 peer on 127.0.0.1 for targets that need a real transfer: it reads each
/// request (head, then a `Content-Length` body), keeps its bytes, writes the reply it was given,
/// and closes the connection.
public final class LoopbackPeer: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    private let listener: Int32
    private let lock = NSLock()
    // Guarded by `lock`.
    private var reply: [UInt8] = []
    private var received: [[UInt8]] = []

    /// Starts listening on an ephemeral port and serving on a thread of its own.
    public init() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 64) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        precondition(bound, "the loopback peer cannot listen: errno \(errno)")
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Sets the bytes written back to the next requests and forgets the requests received so far.
    public func answer(with bytes: [UInt8]) {
        lock.withLock {
            reply = bytes
            received.removeAll()
        }
    }

    /// The requests received since the last ``answer(with:)``, as raw bytes.
    public var requests: [[UInt8]] {
        lock.withLock { received }
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let request = readRequest(connection)
            let bytes = lock.withLock {
                received.append(request)
                return reply
            }
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = send(connection, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                    if written <= 0 { break }
                    offset += written
                }
            }
            shutdown(connection, Int32(SHUT_WR))
            var sink = [UInt8](repeating: 0, count: 4096)
            while recv(connection, &sink, sink.count, 0) > 0 {}
            close(connection)
        }
    }

    /// One request's head and `Content-Length` body (whatever came before a timeout or EOF).
    private func readRequest(_ connection: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var wanted: Int?
        while wanted.map({ bytes.count < $0 }) ?? true {
            let count = recv(connection, &chunk, chunk.count, 0)
            if count <= 0 { break }
            bytes += chunk[..<count]
            if wanted == nil, let end = Self.headEnd(bytes) {
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                wanted = end + length
            }
        }
        return bytes
    }

    /// The index just past the blank line ending the head.
    public static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }
}
