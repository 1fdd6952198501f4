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
    /// a HEADERS frame and fails the session on the ninth (-905): a head too large.
    @Test("a CONTINUATION flood fails the request after a bounded read", arguments: ClientStyle.allCases)
    func continuationFlood(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.continuationFlood)
        let failure = await harness.send(.get("flood"), style).failure
        #expect(failure?.curlMessage?.contains("Too many CONTINUATION frames") == true, "\(failure?.curlMessage ?? "success")")
        #expect(failure?.code == .headersTooLarge, "\(failure?.code.description ?? "success")")
        #expect(harness.server.streams(path: "/flood").count == 1)
        try await harness.finish()
        #expect(harness.server.continuationFramesSent < H2FaultServer.continuationFloodLimit, "the client read the whole flood")
    }

    /// A 300 KiB header section, more than ``Configuration/maximumHeaderSize`` (256 KiB), in one
    /// HEADERS and 18 CONTINUATION frames. libcurl 7.88 holds an HTTP/2 head in 128 KiB at most
    /// and fails nghttp2's header callback beyond it (-902) before the cap is reached.
    @Test("a header section over the cap in one header block is too large", arguments: ClientStyle.allCases)
    func oversizedHeaderSection(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.oversizedHeaderSection(bytes: 300 << 10))
        let failure = await harness.send(.get("big"), style).failure
        #expect(failure?.code == .headersTooLarge, "\(failure.map { "\($0.code) \($0.curlMessage ?? "")" } ?? "success")")
        #expect(harness.server.streams(path: "/big").count == 1)
        try await harness.finish()
    }

    /// One header field of 200 KiB (the HTTP/1.1 fault "one 200 KB header", over HTTP/2).
    /// nghttp2 takes fields of 64 KiB at most: a larger one is a compression error that ends the
    /// session, and libcurl 7.88 reports the request as CURLE_GOT_NOTHING ("Empty reply from
    /// server"), which cannot be told from a server that closed without answering (see
    /// ``Configuration/maximumHeaderSize``).
    @Test("one header field over nghttp2's 64 KiB ends the connection", arguments: ClientStyle.allCases)
    func oversizedHeaderField(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.oversizedHeaderField(bytes: 200 << 10))
        let failure = await harness.send(.get("huge"), style).failure
        #expect(failure?.code == .connectionLost, "\(failure.map { "\($0.code) \($0.curlMessage ?? "")" } ?? "success")")
        #expect(failure?.curlCode == 52)
        #expect(harness.server.streams(path: "/huge").count == 1)
        try await harness.finish()
    }

    /// The flood on a connection that served a request before: curl takes the failure for a
    /// reused connection that died and sends the request again on a new one; it is the same
    /// flood there, and the request fails after two sends at most.
    @Test("a CONTINUATION flood on a reused connection is sent twice at most", arguments: ClientStyle.allCases)
    func continuationFloodOnReusedConnection(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.continuationFlood)
        #expect(await harness.send(.get("ok"), style).bodyText == "GET /ok")
        let failure = await harness.send(.get("flood"), style).failure
        #expect(failure?.curlMessage?.contains("Too many CONTINUATION frames") == true, "\(failure?.curlMessage ?? "success")")
        #expect(failure?.code == .headersTooLarge, "\(failure?.code.description ?? "success")")
        #expect((1...2).contains(harness.server.streams(path: "/flood").count), "\(harness.server.streams)")
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
