import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Testing

/// Behaviour every client must show identically, run once per style against the loopback server.
@Suite(.hangGuard) struct FrontEndTests {
    @Test(arguments: ClientStyle.allCases, ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND"])
    func methodReachesTheServer(style: ClientStyle, method: String) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let echo = try await style.send(Request(method: method, url: "echo"), through: transport).get().echo()
        #expect(echo.method == method)
        #expect(echo.bodyLength == 0)
    }

    @Test(arguments: ClientStyle.allCases)
    func headRequestHasHeadersAndNoBody(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let response = try await style.send(.head("bytes/500"), through: transport).get()
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentLength] == "500")
        #expect(response.body.isEmpty)
    }

    @Test(arguments: ClientStyle.allCases)
    func headersQueryAndBodyRoundTrip(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let payload = TestServer.patternBody(0..<70_000)
        let request = Request.put("echo/upload").query("q", "a b").header("X-Trace", "abc 123")
            .body(payload, contentType: "application/x-test")
        let echo = try await style.send(request, through: transport).get().echo()
        #expect(echo.method == "PUT")
        #expect(echo.path == "/echo/upload")
        #expect(echo.query == "q=a%20b")
        #expect(echo.header("X-Trace") == ["abc 123"])
        #expect(echo.header("Content-Type") == ["application/x-test"])
        #expect(echo.header("Content-Length") == ["70000"])
        #expect(echo.header("Expect").isEmpty)
        #expect(echo.bodyData == payload)
    }

    @Test(arguments: ClientStyle.allCases)
    func jsonStringAndFormBodiesArriveWithTheirContentTypes(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let json = try await style.send(.post("echo").json(["name": "Ada"]), through: transport).get().echo()
        #expect(json.header("Content-Type") == ["application/json"])
        #expect(json.bodyData == Data(#"{"name":"Ada"}"#.utf8))
        let text = try await style.send(.post("echo").body("héllo"), through: transport).get().echo()
        #expect(text.header("Content-Type") == ["text/plain; charset=utf-8"])
        #expect(String(decoding: text.bodyData, as: UTF8.self) == "héllo")
        let form = try await style.send(.post("echo").form(["a": "1 2"]), through: transport).get().echo()
        #expect(form.header("Content-Type") == ["application/x-www-form-urlencoded"])
        #expect(String(decoding: form.bodyData, as: UTF8.self) == "a=1+2")
    }

    @Test(arguments: ClientStyle.allCases)
    func defaultHeadersNameCurlBridgeAndOfferEveryDecodingAndTheRequestWins(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let plain = try await style.send(.get("echo"), through: transport).get().echo()
        #expect(plain.header("User-Agent").first?.hasPrefix("CurlBridge/") == true)
        #expect(plain.header("Accept-Encoding") == ["deflate, gzip, br, zstd"])
        let own = try await style.send(Request.get("echo").header("Accept-Encoding", "gzip").header("User-Agent", "Mine/2"), through: transport)
            .get().echo()
        #expect(own.header("Accept-Encoding") == ["gzip"])
        #expect(own.header("User-Agent") == ["Mine/2"])
    }

    @Test(arguments: ClientStyle.allCases, [200, 201, 204, 301, 404, 418, 500, 503])
    func anyStatusIsAResponseUntilValidated(style: ClientStyle, code: Int) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let response = try await style.send(.get("status/\(code)"), through: transport).get()
        #expect(response.status.code == code)
        if code == 204 { #expect(response.body.isEmpty) }
        let validation = Result { () throws(RequestError) in try response.validate() }
        if (200..<300).contains(code) {
            #expect(validation.failure == nil)
        } else {
            #expect(validation.failure?.code == .unacceptableStatus)
            #expect(validation.failure?.response == response)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func gzipBodyIsDecoded(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let response = try await style.send(.get("gzip"), through: transport).get()
        #expect(response.headerFields[.contentEncoding] == "gzip")
        #expect(response.body.count == Int(response.headerFields[HTTPField.Name("X-Uncompressed-Length")!] ?? ""))
        #expect(response.metrics.bytesReceived < Int64(response.body.count))
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        #expect(object?["gzipped"] as? Bool == true)
    }

    @Test(arguments: ClientStyle.allCases)
    func largeAndChunkedBodiesArriveWhole(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let expected = TestServer.patternBody(0..<3_000_000)
        #expect(try await style.send(.get("bytes/3000000"), through: transport).get().body == expected)
        #expect(try await style.send(.get("chunked/3000000"), through: transport).get().body == expected)
    }

    @Test(arguments: ClientStyle.allCases)
    func http2OverTLSIsNegotiated(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let response = try await style.send(.get("echo"), through: transport).get()
        #expect(response.httpVersion == .http2)
        #expect(try response.echo().httpVersion == "2")
        #expect(response.metrics.tlsHandshake > .zero)
    }

    @Test(arguments: ClientStyle.allCases)
    func keepAliveReusesTheConnection(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        var responses: [Response] = []
        for _ in 0..<4 { responses.append(try await style.send(.get("echo"), through: transport).get()) }
        let connections = Set(try responses.map { try $0.echo().connectionID })
        #expect(connections.count == 1)
        #expect(responses.dropFirst().allSatisfy { $0.metrics.reusedConnection })
        #expect(!responses[0].metrics.reusedConnection)
    }

    @Test(arguments: ClientStyle.allCases)
    func bodyBeyondTheCapFailsAndTheCapCountsDecodedBytes(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let small = Fixture.transport(server) { $0.maximumBodySize = 1000 }
        #expect(await style.send(.get("bytes/5000"), through: small).failure?.code == .bodyTooLarge)
        let gzip = try await style.send(.get("gzip"), through: Fixture.transport(server)).get()
        let betweenSizes = Fixture.transport(server) { $0.maximumBodySize = gzip.body.count - 1 }
        #expect(Int(gzip.metrics.bytesReceived) <= gzip.body.count - 1)
        #expect(await style.send(.get("gzip"), through: betweenSizes).failure?.code == .bodyTooLarge)
    }

    @Test(arguments: ClientStyle.allCases)
    func truncatedBodyIsReported(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let error = await style.send(.get("close-mid-body"), through: transport).failure
        #expect(error?.code == .responseTruncated)
        #expect(error?.curlCode == 18)
    }

    @Test(arguments: ClientStyle.allCases)
    func refusedConnectionIsReported(style: ClientStyle) async throws {
        let refusing = try RefusingPort()  // held, so no other test's listener can take the port
        let port = refusing.port
        let transport = Transport()
        let error = await style.send(.get("http://127.0.0.1:\(port)/"), through: transport).failure
        #expect(error?.code == .connectFailed)
        #expect(error?.curlMessage?.contains("\(port)") == true)
    }

    @Test(arguments: ClientStyle.allCases)
    func untrustedCertificateFailsTLS(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Transport(configuration: Configuration(baseURL: server.httpsURL))
        #expect(await style.send(.get("echo"), through: transport).failure?.code == .certificateUntrusted)
    }
}
