@testable import CurlBridgeOpenAPI
import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// ``CurlBridgeClientTransport`` called as the runtime calls it: which responses have a body, and
/// of what length; how the URL is made.
@Suite(.hangGuard) struct OpenAPITransportTests {
    /// `send` as the generated client calls it, against the shared server's TLS URL.
    private func send(
        _ method: HTTPRequest.Method, _ path: String, wire: Wire, headerFields: HTTPFields = [:]
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let fixture = try await OpenAPIFixture(wire)
        let transport = CurlBridgeClientTransport(transport: fixture.transport)
        let request = HTTPRequest(method: method, scheme: nil, authority: nil, path: path, headerFields: headerFields)
        let response = try await transport.send(request, body: nil, baseURL: OpenAPIFixture.server().httpsURL, operationID: "op")
        try await fixture.waitUntilIdle()
        await fixture.shutdown()
        return response
    }

    @Test(arguments: Wire.allCases)
    func headAnd204And304HaveNoBody(wire: Wire) async throws {
        let (head, headBody) = try await send(.head, "/resource/1000", wire: wire)
        #expect(head.status == .ok)
        #expect(head.headerFields[.contentLength] == "1000")
        #expect(headBody == nil)
        for code in [204, 304] {
            let (response, body) = try await send(.get, "/status/\(code)", wire: wire)
            #expect(response.status.code == code)
            #expect(body == nil)
        }
    }

    @Test(arguments: Wire.allCases)
    func bodyLengthIsKnownFromContentLengthOnly(wire: Wire) async throws {
        let (_, sized) = try await send(.get, "/bytes/1000", wire: wire)
        #expect(sized?.length == .known(1000))
        #expect(sized?.iterationBehavior == .single)
        let (_, chunked) = try await send(.get, "/chunked/1000", wire: wire)
        #expect(chunked?.length == .unknown)
        let (_, gzipped) = try await send(.get, "/gzip", wire: wire)
        #expect(gzipped?.length == .unknown)
    }

    @Test func lengthIgnoresContentLengthOfADecodedBody() {
        let encoded: HTTPFields = [.contentLength: "120", .contentEncoding: "gzip"]
        #expect(HTTPBody.length(of: encoded, decodesContentEncoding: true) == .unknown)
        #expect(HTTPBody.length(of: encoded, decodesContentEncoding: false) == .known(120))
        #expect(HTTPBody.length(of: [.contentLength: "120", .contentEncoding: "identity"], decodesContentEncoding: true) == .known(120))
        #expect(HTTPBody.length(of: [.contentLength: "-1"], decodesContentEncoding: true) == .unknown)
        #expect(HTTPBody.length(of: [:], decodesContentEncoding: true) == .unknown)
    }

    @Test(arguments: [
        ("https://api.example.com", "/v1/users?id=1", "https://api.example.com/v1/users?id=1"),
        ("https://api.example.com/", "/v1/users", "https://api.example.com/v1/users"),
        ("https://api.example.com/api", "/users", "https://api.example.com/api/users"),
        ("https://api.example.com/api/", "/users", "https://api.example.com/api/users"),
        ("https://api.example.com:8443/api//", "/users?q=a%20b", "https://api.example.com:8443/api/users?q=a%20b"),
        ("https://api.example.com/api?key=1#top", "/users", "https://api.example.com/api/users"),
        ("https://api.example.com/api", "users", "https://api.example.com/api/users"),
    ])
    func urlIsTheServerURLFollowedByThePath(base: String, path: String, expected: String) throws {
        #expect(Request.url(base: try #require(URL(string: base)), pathAndQuery: path) == expected)
    }

    @Test func requestCarriesMethodURLAndFieldsButLeavesContentLengthToCurl() throws {
        let fields: HTTPFields = [.contentType: "application/json", .contentLength: "2", .accept: "application/json"]
        let request = Request(
            HTTPRequest(method: .put, scheme: nil, authority: nil, path: "/items/1", headerFields: fields),
            body: HTTPBody("{}"), baseURL: try #require(URL(string: "https://example.com/v1")))
        #expect(request.method == .put)
        #expect(request.url == "https://example.com/v1/items/1")
        #expect(request.headerFields == [.contentType: "application/json", .accept: "application/json"])
        #expect(request.body?.isRewindable == false)
        #expect(request.body?.contentType == nil)
    }
}
