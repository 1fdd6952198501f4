import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// HTTP/2 responses that go wrong after their head: a stream reset, more DATA than
/// `content-length`, the connection closed, a stall. Each ends in exactly one precise failure,
/// never a success with part of the body, and is not sent again.
@Suite("HTTP/2 stream faults", .hangGuard)
struct H2StreamFaultTests {
    /// RST_STREAM (INTERNAL_ERROR) after the head and 100 of 1000 announced bytes: libcurl 7.88
    /// reports any reset stream as CURLE_HTTP2_STREAM ("stream 1 was not closed cleanly:
    /// INTERNAL_ERROR"); after the head, a body cut short, as over HTTP/1.1.
    @Test("a stream reset mid-body is a truncated response", arguments: ClientStyle.allCases)
    func resetMidBody(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.resetMidBody)
        let error = await harness.send(.get("reset"), style).failureCode()
        #expect(error == .responseTruncated)
        let failure = await harness.send(.get("reset-again"), style).failure
        #expect(failure?.curlCode == 92)
        #expect(failure?.curlMessage?.contains("INTERNAL_ERROR") == true, "\(failure?.curlMessage ?? "")")
        #expect(harness.server.streams(path: "/reset").map(\.disposition) == [.faulted], "sent again")
        try await harness.finish()
    }

    /// 20 bytes of DATA after `content-length: 10`: nghttp2 checks DATA against the announced
    /// length and resets the stream with PROTOCOL_ERROR.
    @Test("DATA beyond content-length is a protocol error", arguments: ClientStyle.allCases)
    func dataBeyondContentLength(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.dataBeyondContentLength)
        let failure = await harness.send(.get("long"), style).failure
        #expect(failure?.code == .protocolError, "\(failure.map { "\($0.code) \($0.curlMessage ?? "")" } ?? "success")")
        #expect(harness.server.streams(path: "/long").count == 1)
        try await harness.finish()
    }

    /// The connection closed (TLS close_notify, FIN) after 100 of 1000 announced bytes: libcurl
    /// 7.88 says "HTTP/2 stream 1 was not closed cleanly before end of the underlying stream",
    /// CURLE_PARTIAL_FILE.
    @Test("a connection closed mid-body is a truncated response", arguments: ClientStyle.allCases)
    func closeMidBody(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.closeMidBody)
        let failure = await harness.send(.get("cut"), style).failure
        #expect(failure?.code == .responseTruncated, "\(failure.map { "\($0.code) \($0.curlMessage ?? "")" } ?? "success")")
        #expect(harness.server.streams(path: "/cut").count == 1, "sent again after part of the response arrived")
        try await harness.finish()
    }

    /// A head announcing 1000 bytes, then silence on an open connection. The connection is
    /// made by a request before, so the idle clock runs while the stream is silent, not during
    /// the TLS handshake.
    @Test("a stall after the head is an idle timeout", arguments: ClientStyle.allCases)
    func stallAfterHeaders(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.stallAfterHeaders)
        #expect(await harness.send(.get("ok"), style).bodyText == "GET /ok")
        let failure = await harness.send(.get("stall").timeout(idle: .seconds(2)), style).failure
        #expect(failure?.code == .idleTimedOut, "\(failure.map { "\($0.code) \($0.curlMessage ?? "")" } ?? "success")")
        // At most once: on a machine loaded enough, the idle limit can pass before the request
        // reached the server; it is never sent again.
        #expect(harness.server.streams(path: "/stall").count <= 1)
        try await harness.finish()
    }
}
