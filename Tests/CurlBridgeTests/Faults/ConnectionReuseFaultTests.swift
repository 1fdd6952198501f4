import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// A kept-alive connection that the server closes exactly when it is reused: the request went
/// out and nothing came back.
@Suite("Connection closed as it is reused", .hangGuard)
struct ConnectionReuseFaultTests {
    @Test("a GET on a connection closed as reused succeeds on a fresh connection", arguments: ClientStyle.allCases, [false, true])
    func getIsSentAgainOnAFreshConnection(style: ClientStyle, tls: Bool) async throws {
        let server = try await FaultFixture.server()
        let key = FaultFixture.key()
        let (transport, completions) = FaultFixture.transport()
        let url = server.url(.closedWhenReused, tls: tls, key: key)
        #expect(try await style.send(.get(url), through: transport).get().body == Data("first".utf8))
        let again = await style.send(.get(url), through: transport)
        #expect((try? again.get().body) == Data("first".utf8), "\(again.failure?.curlMessage ?? "")")
        let requests = server.record(key: key).requests
        #expect(requests.map(\.indexOnConnection) == [1, 2, 1], "the second GET went out on the kept-alive connection, then on a new one")
        #expect(Set(requests.map(\.connection)).count == 2)
        #expect(await completions.completions(containing: key, through: transport, server: server) == 2)
    }

    @Test("a POST on a connection closed as reused fails and is never sent twice", arguments: ClientStyle.allCases, [false, true])
    func postIsNeverSentTwice(style: ClientStyle, tls: Bool) async throws {
        let server = try await FaultFixture.server()
        let key = FaultFixture.key()
        let (transport, completions) = FaultFixture.transport()
        let url = server.url(.closedWhenReused, tls: tls, key: key)
        #expect(try await style.send(.get(url), through: transport).get().body == Data("first".utf8))
        let post = await style.send(.post(url).body(Data("payload".utf8)), through: transport)
        #expect(post.failure?.code == .connectionLost, "\(post.failure.map { "\($0.code) \($0.curlMessage ?? "")" } ?? "success")")
        let posts = server.record(key: key).requests("POST")
        #expect(posts.count == 1, "the server received \(posts.count) POSTs")
        #expect(posts.first?.bodyLength == 7)
        #expect(posts.first?.indexOnConnection == 2)
        #expect(await completions.completions(containing: key, through: transport, server: server) == 2)
    }
}
