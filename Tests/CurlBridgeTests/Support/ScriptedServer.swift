@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP/1.1 server answering each connection with the next scripted response, then
/// closing it.
///
/// Its thread owns the listening socket and closes it when the script ends. Releasing the server
/// only shuts the socket down, which wakes the thread's `accept`; it never closes a descriptor
/// the thread may still pass to `accept`. (It once did: the number then belonged to the next
/// test's socket, whose connection this server's thread took and answered with its own script.)
final class ScriptedServer: Sendable {
    private let listener: Listener
    /// The port it listens on.
    let port: Int
    private let served = PosixLock(0)
    private let awaited = PosixLock(0)

    /// `http://127.0.0.1:<port>/`.
    var url: String { "http://127.0.0.1:\(port)/" }
    /// How many requests it has answered.
    var requestCount: Int { served.withLock { $0 } }
    /// How many connections its thread has begun to wait for (called `accept` for, or is about to).
    var connectionsAwaited: Int { awaited.withLock { $0 } }

    /// A complete `Connection: close` response with `body`.
    static func response(status: String, body: Data) -> Data {
        var data = Data("HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n".utf8)
        data.append(body)
        return data
    }

    /// Listens on a free port and answers the first `script.count` connections, in order.
    init(_ script: [Data]) throws {
        let socket = try LoopbackSocket(listeningWithBacklog: 16)
        let listener = Listener(descriptor: socket.descriptor)
        self.listener = listener
        self.port = socket.port
        let (served, awaited) = (self.served, self.awaited)
        let thread = Thread {
            defer { listener.close() }
            for answer in script {
                awaited.withLock { $0 += 1 }
                let connection = accept(listener.descriptor, nil, nil)
                guard connection >= 0 else { return }
                Self.readHead(from: connection)
                served.withLock { $0 += 1 }
                Self.write(answer, to: connection)
                shutdown(connection, Int32(SHUT_WR))
                usleep(100_000)  // lets the client read to the end before the close
                Glibc.close(connection)
            }
        }
        thread.start()
    }

    deinit { listener.stop() }

    /// Reads until the end of a request head (or of the connection).
    private static func readHead(from connection: Int32) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.range(of: Data("\r\n\r\n".utf8)) == nil {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    /// Writes all of `answer`, or as much as the peer takes.
    private static func write(_ answer: Data, to connection: Int32) {
        answer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(connection, bytes.baseAddress! + offset, bytes.count - offset)
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// The listening socket, shut down by the server's release and closed by its thread alone.
    private final class Listener: Sendable {
        let descriptor: Int32
        /// Whether the socket is still open to `stop`: set under the lock by the close, so a
        /// shutdown never reaches a reused descriptor number.
        private let isOpen = PosixLock(true)

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        /// Wakes a waiting `accept` and makes every later one fail.
        func stop() {
            isOpen.withLock { isOpen in
                if isOpen { shutdown(descriptor, Int32(SHUT_RDWR)) }
            }
        }

        /// Closes the socket; called once, by the thread.
        func close() {
            isOpen.withLock { isOpen in
                Glibc.close(descriptor)
                isOpen = false
            }
        }
    }
}
