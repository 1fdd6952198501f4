import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// A body cut short, a reset in the middle of the body and a stall after the head end with the
/// same code over HTTP/1.1 and HTTP/2, in every style, whether the body goes to memory or to a
/// file: `responseTruncated` for the first two (the head arrived, the body did not), and
/// `idleTimedOut` for the stall. Issue 21 found a download cut over HTTP/2 reported as
/// `protocolError` and the same cut over HTTP/1.1 as `responseTruncated`.
@Suite("one code per fault, whatever the protocol", .hangGuard)
struct OneCodePerFaultTests {
    /// What goes wrong after a `200` head announcing more bytes than arrive.
    enum Mishap: String, CaseIterable, Sendable {
        /// The server closes the connection cleanly (FIN, with TLS close_notify over TLS).
        case cut
        /// The server resets the TCP connection.
        case reset
        /// HTTP/2 only: the server resets the stream (RST_STREAM, INTERNAL_ERROR).
        case streamReset
        /// The server sends nothing more.
        case stall

        var expected: RequestError.Code { self == .stall ? .idleTimedOut : .responseTruncated }

        /// An idle limit for the stall only: on a loaded machine a short limit could also end a
        /// cut before the server's close arrived.
        func configure(_ configuration: inout Configuration) {
            if self == .stall { configuration.timeouts.idle = .milliseconds(500) }
        }
    }

    @Test("over HTTP/1.1, plain and over TLS", arguments: [Mishap.cut, .reset, .stall], ClientStyle.allCases)
    func overHTTP1(mishap: Mishap, style: ClientStyle) async throws {
        let server = try await FaultFixture.server()
        let (transport, _) = FaultFixture.transport { mishap.configure(&$0) }
        for tls in [false, true] {
            let url: (String) -> String = { key in
                switch mishap {
                case .cut: server.url(.closeMidBody, tls: tls, key: key, ["mode": "fin"])
                case .reset: server.url(.closeMidBody, tls: tls, key: key, ["mode": "rst"])
                case .streamReset, .stall: server.url(.stallAfterHeaders, tls: tls, key: key)
                }
            }
            try await expectSameCode(mishap, style: style, through: transport) { .get(url(FaultFixture.key())) }
        }
    }

    @Test("over HTTP/2", arguments: Mishap.allCases, ClientStyle.allCases)
    func overHTTP2(mishap: Mishap, style: ClientStyle) async throws {
        let fault: H2Fault = switch mishap {
        case .cut: .closeMidBody
        case .reset: .resetConnectionMidBody
        case .streamReset: .resetMidBody
        case .stall: .stallAfterHeaders
        }
        let harness = try await H2FaultHarness.start(fault) { mishap.configure(&$0) }
        try await expectSameCode(mishap, style: style, through: harness.transport) { .get("mishap-\(UUID().uuidString)") }
        try await harness.finish()
    }

    /// The embedded server's `resource?cut=` (the AsyncTasks demo's cut download), over
    /// HTTP/1.1 (plain) and HTTP/2 (TLS).
    @Test("the test server's cut resource", arguments: ClientStyle.allCases)
    func testServerCut(style: ClientStyle) async throws {
        for tls in [false, true] {
            let transport = Fixture.transport(try await Fixture.server(), tls: tls)
            try await expectSameCode(.cut, style: style, through: transport) { .get("resource/300000?cut=100000") }
        }
    }

    /// Sends and downloads a request made by `request` and expects `mishap`'s code from both.
    private func expectSameCode(
        _ mishap: Mishap, style: ClientStyle, through transport: Transport, _ request: () -> Request,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let sent = await style.send(request(), through: transport).failure
        #expect(sent?.code == mishap.expected, "send: \(Self.describe(sent))", sourceLocation: sourceLocation)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let downloaded = await style.download(request(), to: scratch.file("file"), through: transport).failure
        #expect(downloaded?.code == mishap.expected, "download: \(Self.describe(downloaded))", sourceLocation: sourceLocation)
    }

    private static func describe(_ error: RequestError?) -> String {
        error.map { "\($0.code), curl said: \($0.curlMessage ?? "-")" } ?? "success"
    }
}
