import CurlBridge
import CurlBridgeOpenAPI
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The generated client through ``CurlBridgeClientTransport``: JSON both ways, path, query and
/// header parameters, statuses, bodiless responses.
@Suite(.hangGuard) struct OpenAPIRequestAndResponseTests {
    @Test(arguments: Wire.allCases)
    func jsonResponseIsDecoded(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        let item = try await fixture.client.getJSON().ok.body.json
        #expect(item == Components.Schemas.Item(id: 42, name: "CurlBridge"))
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func pathQueryAndHeaderParametersReachTheServer(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        let reply = try await fixture.client.echoName(
            path: .init(name: "a b/ü"), query: .init(q: "x&y=z", tag: [1, 2]), headers: .init(xLabel: "label")
        ).ok.body.json
        #expect(reply.method == "GET")
        #expect(reply.path == "/echo/a%20b%2F%C3%BC")
        #expect(reply.query == "q=x%26y%3Dz&tag=1&tag=2")
        #expect(reply.httpVersion == wire.serverName)
        #expect(reply.header("x-label") == ["label"])
        #expect(reply.header("accept") == ["application/json"])
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func jsonRequestBodyIsSentWithOneContentLength(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        let item = Components.Schemas.Item(id: 7, name: "seven")
        let reply = try await fixture.client.echoItem(body: .json(item)).ok.body.json
        #expect(reply.method == "POST")
        #expect(reply.path == "/echo")
        let sent = try JSONDecoder().decode(Components.Schemas.Item.self, from: Data(reply.body.data))
        #expect(sent == item)
        #expect(reply.header("content-length") == [String(reply.bodyLength)])
        #expect(reply.header("content-type") == ["application/json; charset=utf-8"])
        #expect(reply.header("transfer-encoding") == [])
        #expect(reply.header("expect") == [])
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func serverURLPathPrefixIsKeptWithOneSlash(wire: Wire) async throws {
        let server = try await OpenAPIFixture.server()
        for prefix in ["echo", "echo/"] {
            let fixture = try await OpenAPIFixture(wire, serverURL: server.httpsURL.appending(path: prefix))
            let reply = try await fixture.client.echoName(path: .init(name: "x"), query: .init(q: "1")).ok.body.json
            #expect(reply.path == "/echo/echo/x", "server URL …/\(prefix)")
            #expect(reply.query == "q=1")
            await fixture.shutdown()
        }
    }

    @Test(arguments: Wire.allCases)
    func statusesAreResponsesNotErrors(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        let ok = try await fixture.client.getStatus(path: .init(code: 200))
        #expect(try await String(collecting: ok.ok.body.plainText, upTo: 1024).isEmpty == false)
        let noContent = try await fixture.client.getStatus(path: .init(code: 204))
        #expect(noContent == .noContent(.init()))
        guard case .default(let statusCode, let notFound) = try await fixture.client.getStatus(path: .init(code: 404)) else {
            Issue.record("404 should be the default response")
            return
        }
        #expect(statusCode == 404)
        #expect(try await String(collecting: notFound.body.plainText, upTo: 1024).isEmpty == false)
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func headResponseHasItsHeaders(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        #expect(try await fixture.client.headResource(path: .init(size: 5_000_000)).ok.headers.contentLength == 5_000_000)
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func gzipBodyIsDecoded(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire)
        #expect(try await fixture.client.getGzip().ok.body.json.gzipped)
        await fixture.shutdown()
    }
}

extension Components.Schemas.EchoReply {
    /// The values of the request's header fields named `name` (lowercase), in order.
    func header(_ name: String) -> [String] {
        headers.compactMap { $0.count == 2 && $0[0].lowercased() == name ? $0[1] : nil }
    }
}
