import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Streams the server refused with RST_STREAM (REFUSED_STREAM) before any response: not
/// processed, so curl sends the request again on a new connection by itself
/// (`Curl_retry_request`, up to 5 times in libcurl 7.88). CurlBridge allows that once for an
/// idempotent method and never for another.
@Suite("HTTP/2 refused streams", .hangGuard)
struct H2RefusedStreamTests {
    @Test("a refused GET is sent again once, on a new connection, and succeeds", arguments: ClientStyle.allCases)
    func refusedGetIsRetriedOnce(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.refuseStreams(count: 1))
        let outcome = await harness.send(.get("a"), style)
        #expect(outcome.bodyText == "GET /a")
        let streams = harness.server.streams(path: "/a")
        #expect(streams.map(\.disposition) == [.refused, .answered])
        #expect(streams.map(\.connection) == [0, 1])
        try await harness.finish()
    }

    @Test("a GET refused every time is sent twice at most and fails as a lost connection", arguments: ClientStyle.allCases)
    func alwaysRefusedGetFails(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.refuseStreams(count: 1000))
        let failure = await harness.send(.get("a"), style).failure
        #expect(failure?.code == .connectionLost, "\(failure.map { "\($0.code) \($0.curlMessage ?? "")" } ?? "success")")
        #expect(harness.server.streams(path: "/a").map(\.disposition) == [.refused, .refused])
        try await harness.finish()
    }

    @Test("a refused POST is never sent again: it fails as a lost connection", arguments: ClientStyle.allCases)
    func refusedPostIsNotRetried(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.refuseStreams(count: 1))
        let failure = await harness.send(.post("form").body("x=1"), style).failure
        #expect(failure?.code == .connectionLost, "\(failure.map { "\($0.code) \($0.curlMessage ?? "")" } ?? "success")")
        #expect(harness.server.streams(path: "/form").map(\.disposition) == [.refused])
        try await harness.finish()
    }
}
