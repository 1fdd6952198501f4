import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

@Suite("TestServer: routes registered by a test, over HTTP/1.1 and HTTP/2 with TLS")
struct TestServerRouteTests {
    @Test("A registered route answers on plaintext HTTP/1.1 and on HTTP/2 over TLS with the test CA")
    func registeredRouteAnswersOnBothListeners() async throws {
        let server = try await TestServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("/users", method: "POST") { request in
            .text("\(request.method) \(request.path) \(request.body.count) bytes, HTTP/\(request.httpVersion), q=\(request.queryValue("q") ?? "-")")
        }
        var tls = TLSConfiguration()
        tls.trustRoots = .replacingSystem(with: try CertificateBundle(pem: TestServer.certificateAuthorityPEM))
        let transport = Transport(configuration: Configuration(tls: tls))

        let client = AsyncClient(transport: transport)
        let plain = try await client.send(.post(server.httpURL.appendingPathComponent("users").absoluteString + "?q=1").body(Data(count: 5)))
        let secure = try await client.send(.post(server.httpsURL.appendingPathComponent("users").absoluteString).body(Data(count: 7)))

        #expect(String(decoding: plain.body, as: UTF8.self) == "POST /users 5 bytes, HTTP/1.1, q=1")
        #expect(String(decoding: secure.body, as: UTF8.self) == "POST /users 7 bytes, HTTP/2, q=-")
        #expect(secure.httpVersion == .http2)
    }

    @Test("The latest matching registration wins; a prefix route covers its paths; built-in routes stay")
    func matchingRules() async throws {
        let server = try await TestServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("/files/*") { request in .text("file \(request.path)") }
        server.route("/files/special", method: "GET") { _ in RouteResponse(status: 418, headers: [("X-Special", "yes")]) }
        let client = AsyncClient(transport: Transport())
        let base = server.httpURL.absoluteString

        let file = try await client.send(.get(base + "files/a/b.txt"))
        let special = try await client.send(.get(base + "files/special"))
        let builtIn = try await client.send(.get(base + "status/201"))

        #expect(String(decoding: file.body, as: UTF8.self) == "file /files/a/b.txt")
        #expect(special.status.code == 418)
        #expect(special.headerFields[.init("X-Special")!] == "yes")
        #expect(builtIn.status == .created)
    }

    @Test("A route that answers hangUp closes the connection without a response")
    func hangUpClosesTheConnection() async throws {
        let server = try await TestServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("/gone") { _ in .hangUp }
        let client = AsyncClient(transport: Transport())

        let error = await #expect(throws: RequestError.self) {
            try await client.send(.get(server.httpURL.absoluteString + "gone"))
        }

        #expect(error?.code == .connectionLost)
    }
}
