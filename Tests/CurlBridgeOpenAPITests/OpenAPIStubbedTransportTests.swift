import CurlBridge
import CurlBridgeOpenAPI
import CurlBridgeTesting
import Foundation
import OpenAPIRuntime
import Testing

/// The generated client over a stubbed ``Transport`` (CurlBridgeTesting): how an app tests its
/// OpenAPI calls with no socket — canned answers in, recorded requests out.
@Suite(.hangGuard) struct OpenAPIStubbedTransportTests {
    /// The generated client over `responder`, at `https://api.example.com/v1`.
    private func client(_ responder: StubResponder) throws -> Client {
        let serverURL = try #require(URL(string: "https://api.example.com/v1"))
        return Client(serverURL: serverURL, transport: CurlBridgeClientTransport(transport: Transport(responder: responder)))
    }

    @Test func cannedJSONReachesTheCallerAndTheRequestIsRecorded() async throws {
        let responder = StubResponder()
        responder.on(.get, "/v1/echo/x%20y", respond: try .json(Components.Schemas.EchoReply(
            method: "GET", path: "/echo/x%20y", headers: [], body: .init([]), bodyLength: 0, httpVersion: "1.1",
            connectionID: 1)))
        let reply = try await client(responder).echoName(path: .init(name: "x y"), query: .init(q: "1")).ok.body.json
        #expect(reply.connectionID == 1)
        let sent = try #require(responder.requests.first)
        #expect(sent.url == "https://api.example.com/v1/echo/x%20y?q=1")
        #expect(sent.headerFields[.accept] == "application/json")
    }

    @Test func streamedUploadIsRecordedWhole() async throws {
        let responder = StubResponder()
        responder.on(.put, "/v1/upload-sink", respond: try .json(Components.Schemas.UploadSinkReply(
            method: "PUT", length: 300_000, sha256: "", httpVersion: "1.1")))
        let upload = GeneratedUpload(count: 300_000, chunkSize: 7_000)
        let body = HTTPBody(upload, length: .known(300_000), iterationBehavior: .single)
        _ = try await client(responder).upload(body: .binary(body)).ok
        let sent = try #require(responder.requests.first)
        var expected = Data()
        for await chunk in upload { expected.append(contentsOf: chunk) }
        #expect(sent.body == expected)
        #expect(sent.headerFields[.contentType] == "application/octet-stream")
    }

    @Test func cannedFailureIsTheClientErrorsUnderlyingError() async throws {
        let responder = StubResponder()
        responder.on(.get, "/v1/json", respond: .failure(RequestError(.connectionLost, "reset by peer")))
        let error = await #expect(throws: ClientError.self) { try await client(responder).getJSON() }
        let failure = try #require(error?.underlyingError as? RequestError)
        #expect(failure.code == .connectionLost)
        #expect(failure.url == "https://api.example.com/v1/json")
    }
}
