import CurlBridgeTestServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The scripted server that other suites build their faults on: it must answer only its own
/// test's connections.
@Suite("Scripted server")
struct ScriptedServerTests {
    /// Its thread waits for a second connection when the test releases it. The server once
    /// closed its listener under that thread: a listener closed inside `accept` stays open until
    /// the call returns, and answered the next connection to its port; one closed before the
    /// call gave its number to the next test's listener, whose request the stale thread took.
    @Test("a released server answers no later connection, though its script had more")
    func releasedServerAnswersNothing() async throws {
        var server: ScriptedServer? = try ScriptedServer([
            ScriptedServer.response(status: "200 OK", body: Data("first".utf8)),
            ScriptedServer.response(status: "200 OK", body: Data("second".utf8)),
        ])
        let port = try #require(server?.port)
        #expect(Self.exchange(port: port)?.hasSuffix("first") == true)
        let waiting = await poll(within: .seconds(60)) { [weak server] in server?.connectionsAwaited == 2 }
        #expect(waiting)
        server = nil
        let late = Self.exchange(port: port)
        #expect(late == nil, "answered after its release: \(late ?? "")")
    }

    /// Sends a request head to `127.0.0.1:port` and reads the answer to the end: `nil` when the
    /// connection is refused or closed without a byte.
    private static func exchange(port: Int) -> String? {
        let connection = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(connection) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)  // a bound on a broken server, not a timing
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = LoopbackSocket.loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(connection, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let head = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard write(connection, head, head.count) == head.count else { return nil }
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        return answer.isEmpty ? nil : String(decoding: answer, as: UTF8.self)
    }
}
