import CurlBridge
import CurlBridgeOpenAPI
import CurlBridgeTestServer
import Foundation
import OpenAPIRuntime
import Testing

/// A ``RetryPolicy`` set per operation through ``CurlBridgeClientTransport/Configuration-swift.struct/adaptRequest``:
/// bodiless operations are retried, operations whose streamed body cannot be sent twice are not.
@Suite(.hangGuard) struct OpenAPIRetryTests {
    private static let configuration = CurlBridgeClientTransport.Configuration { request, _ in
        request.retries(RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(1)))
    }

    @Test(arguments: Wire.allCases)
    func bodilessOperationIsRetried(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire, configuration: Self.configuration)
        let key = "openapi-get-\(wire)-\(UUID())"
        let text = try await String(collecting: fixture.client.flaky(query: .init(key: key, failures: 2)).ok.body.plainText, upTo: 1024)
        #expect(text.hasPrefix("ok after 2 failures"))
        #expect(FlakyRoute.requestCount(key: key) == 3)
        await fixture.shutdown()
    }

    @Test(arguments: Wire.allCases)
    func operationWithAStreamedBodyIsNotRetried(wire: Wire) async throws {
        let fixture = try await OpenAPIFixture(wire, configuration: Self.configuration)
        let key = "openapi-put-\(wire)-\(UUID())"
        let response = try await fixture.client.flakyUpload(query: .init(key: key, failures: 2), body: .binary(HTTPBody("data")))
        guard case .default(let statusCode, _) = response else {
            Issue.record("the first attempt's 503 should be the response, got \(response)")
            return
        }
        #expect(statusCode == 503)
        #expect(FlakyRoute.requestCount(key: key) == 1)
        await fixture.shutdown()
    }
}
