import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// HTTP/2 header blocks that do not end or are too large. The client must fail with a code that
/// says so, having read only a bounded part of what the server sent.
@Suite("HTTP/2 header faults", .hangGuard)
struct H2HeaderFaultTests {
    /// HEADERS without END_HEADERS, then CONTINUATION frames without end. nghttp2 1.52 as
    /// patched for CVE-2024-28182 (Debian 1.52.0-1+deb12u2) accepts 8 CONTINUATION frames after
    /// a HEADERS frame and fails the session on the ninth.
    @Test("a CONTINUATION flood fails the request after a bounded read", arguments: ClientStyle.allCases)
    func continuationFlood(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.continuationFlood)
        let failure = await harness.send(.get("flood"), style).failure
        let code = failure?.code
        #expect(code == .headersTooLarge || code == .protocolError, "\(failure.map { "\($0.code) \($0.curlMessage ?? "")" } ?? "success")")
        try await harness.finish()
        #expect(harness.server.continuationFramesSent < H2FaultServer.continuationFloodLimit, "the client read the whole flood")
    }

    /// A 300 KiB header section, more than ``Configuration/maximumHeaderSize`` (256 KiB), in one
    /// HEADERS and 18 CONTINUATION frames.
    @Test("a header section over the cap in one header block is too large", arguments: ClientStyle.allCases)
    func oversizedHeaderSection(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.oversizedHeaderSection(bytes: 300 << 10))
        let failure = await harness.send(.get("big"), style).failure
        #expect(failure?.code == .headersTooLarge, "\(failure.map { "\($0.code) \($0.curlMessage ?? "")" } ?? "success")")
        #expect(harness.server.streams(path: "/big").count == 1)
        try await harness.finish()
    }

    /// A 64 KiB header section, in one HEADERS and 4 CONTINUATION frames, is a normal response.
    @Test("a large header section within the limits is accepted", arguments: ClientStyle.allCases)
    func largeHeaderSectionWithinLimits(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.oversizedHeaderSection(bytes: 64 << 10))
        let response = try await harness.send(.get("large"), style).get()
        #expect(response.status.code == 200)
        #expect(response.headerFields.count > 60)
        try await harness.finish()
    }
}
