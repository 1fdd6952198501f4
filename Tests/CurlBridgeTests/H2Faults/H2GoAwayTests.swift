import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// GOAWAY while several streams are open on one connection (the client multiplexes concurrent
/// requests over HTTP/2). Streams up to the GOAWAY's last stream id are the server's to finish;
/// the others were never processed: nghttp2 closes them as refused and curl sends their
/// requests again on a new connection.
@Suite("HTTP/2 GOAWAY", .hangGuard)
struct H2GoAwayTests {
    /// `requests` concurrent GETs; the server processes the first `answered` to arrive, refuses the
    /// rest by GOAWAY. Every request succeeds with its own body; each was processed exactly once,
    /// and the refused ones were sent exactly twice, the second time on a new connection — also the
    /// one whose transfer libcurl 7.88 fails with CURLE_HTTP2 instead of sending it again (it finds
    /// the session with no stream left, `should_close_session`): the transport sends that one again.
    @Test("streams above GOAWAY's last stream id are sent again once; none is processed twice",
          arguments: ClientStyle.allCases, [2, 0])
    func refusedStreamsAreRetriedOnce(style: ClientStyle, answered: Int) async throws {
        let count = 4
        let harness = try await H2FaultHarness.start(.goAway(requests: count, answered: answered))
        let paths = (0..<count).map { "/r\($0)" }
        let outcomes = await harness.sendConcurrently(paths.map { .get(String($0.dropFirst())) }, style)
        let streams = harness.server.streams
        let firstConnection = streams.filter { $0.connection == 0 }
        #expect(firstConnection.count == count, "not multiplexed on one connection: \(streams)")
        #expect(firstConnection.filter { $0.disposition == .answered }.count == answered)
        for (path, outcome) in zip(paths, outcomes) {
            let seen = streams.filter { $0.path == path }
            #expect(seen.filter { $0.disposition == .answered }.count <= 1, "\(path) processed twice: \(seen)")
            guard let first = seen.first, first.disposition == .notProcessed else {
                #expect(seen.map(\.disposition) == [.answered], "\(path) processed, then sent again: \(seen)")
                #expect(outcome.bodyText == "GET \(path)")
                continue
            }
            #expect(outcome.bodyText == "GET \(path)")
            #expect(seen.map(\.disposition) == [.notProcessed, .answered], "\(path) not sent again once: \(seen)")
            #expect(seen.last?.connection != 0)
        }
        try await harness.finish()
    }

    /// GOAWAY with last stream id k, the stream k cut mid-body by the connection's close: the
    /// stream below k succeeds, stream k fails as truncated and is not sent again (part of its
    /// response arrived), the streams above k are sent again once and succeed.
    @Test("a stream within GOAWAY's last stream id cut by the close fails; those above it succeed",
          arguments: ClientStyle.allCases)
    func closeMidBodyAfterGoAway(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.goAwayThenCloseMidBody(requests: 4, answered: 2))
        let paths = (0..<4).map { "/r\($0)" }
        let outcomes = await harness.sendConcurrently(paths.map { .get(String($0.dropFirst())) }, style)
        let streams = harness.server.streams
        for (path, outcome) in zip(paths, outcomes) {
            let seen = streams.filter { $0.path == path }
            switch seen.first?.disposition {
            case .answered?:
                #expect(outcome.bodyText == "GET \(path)")
                #expect(seen.count == 1)
            case .faulted?:
                let failure = outcome.failure
                #expect(failure?.code == .responseTruncated, "\(path): \(outcome.bodyText)")
                #expect(seen.count == 1, "\(path) sent again after part of its response arrived: \(seen)")
            case .notProcessed?:
                #expect(outcome.bodyText == "GET \(path)")
                #expect(seen.map(\.disposition) == [.notProcessed, .answered])
            default:
                Issue.record("\(path) unaccounted for: \(seen)")
            }
        }
        #expect(streams.filter { $0.connection == 0 }.map(\.disposition).sorted { $0.rawValue < $1.rawValue }
            == [.answered, .faulted, .notProcessed, .notProcessed])
        try await harness.finish()
    }

    /// Two concurrent POSTs, one above GOAWAY's last stream id: that one was not processed, and a
    /// POST is never sent twice, so it fails as a lost connection; the other succeeds.
    @Test("a POST refused by GOAWAY is not sent again", arguments: ClientStyle.allCases)
    func refusedPostIsNotRetried(style: ClientStyle) async throws {
        let harness = try await H2FaultHarness.start(.goAway(requests: 2, answered: 1))
        let paths = ["/p0", "/p1"]
        let outcomes = await harness.sendConcurrently(paths.map { .post(String($0.dropFirst())).body("x=1") }, style)
        let streams = harness.server.streams
        for (path, outcome) in zip(paths, outcomes) {
            let seen = streams.filter { $0.path == path }
            if seen.first?.disposition == .answered {
                #expect(outcome.bodyText == "POST \(path)")
                #expect(seen.count == 1)
            } else {
                #expect(seen.map(\.disposition) == [.notProcessed], "\(path): \(seen)")
                #expect(outcome.failure != nil)
                #expect(outcome.failure?.code == .connectionLost, "\(path): \(outcome.bodyText)")
            }
        }
        try await harness.finish()
    }
}
