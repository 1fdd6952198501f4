@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// A transfer's failure names the hop that failed — its method and URL — whichever engine
/// reported it: the request machine attributes every transfer's end, and no engine does.
@Suite struct ErrorAttributionTests {
    @Test func aStubbedFailureAfterARedirectNamesTheHopThatFailed() async throws {
        let transport = Transport(stub: { request in
            if request.url.hasSuffix("/start") {
                return StubResponse(status: .found, headerFields: [.location: "/next"])
            }
            return .failure(RequestError(.connectionLost, "reset by peer"))
        })
        let client = AsyncClient(transport: transport)
        do {
            _ = try await client.send(.post("http://stub.test/start"))
            Issue.record("the request succeeded")
        } catch {
            #expect(error.code == .connectionLost)
            #expect(error.url == "http://stub.test/next")
            #expect(error.method == .get)  // a 302 turns the POST into a GET
        }
    }

    @Test func aCurlFailureNamesTheRequest() async throws {
        // A port bound and never listened on, held for the whole request: connecting is refused.
        let (socket, port) = try Self.boundLoopbackSocket()
        defer { close(socket) }
        let client = AsyncClient(transport: Transport())
        let url = "http://127.0.0.1:\(port)/refused"
        do {
            _ = try await client.send(.delete(url))
            Issue.record("the request succeeded")
        } catch {
            #expect(error.code == .connectFailed)
            #expect(error.url == url)
            #expect(error.method == .delete)
        }
    }

    /// A TCP socket bound to a free loopback port, not listening, and the port.
    private static func boundLoopbackSocket() throws -> (Int32, Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else {
            close(socket)
            throw POSIXError(.EADDRINUSE)
        }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }
}
