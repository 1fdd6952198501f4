@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Bodies of plain sends reuse the transport's pooled blocks: a response must never show the
/// bytes an earlier response of the transport left in its block, whatever the caller does with
/// its `Data` — read it, grow it, append to it — with a declared length or without one.
@Suite struct PooledBodyIsolationTests {
    @Test func aResponseNeverShowsAnEarlierResponsesBytes() async throws {
        let server = try await Fixture.server()
        server.route("/pooled-isolation/secret") { _ in RouteResponse(body: Data(repeating: 0xA5, count: 65_536)) }
        server.route("/pooled-isolation/next") { _ in RouteResponse(body: Data(repeating: 0x11, count: 60_000)) }
        let client = AsyncClient(transport: Fixture.transport(server))
        let pattern = try await client.send(.get("bytes/60000")).body

        for round in 0..<8 {
            let secret = try await client.send(.get("pooled-isolation/secret")).body
            #expect(secret == Data(repeating: 0xA5, count: 65_536))
            // Released before the next request, so that its block can serve it.
            _ = consume secret
            // With a declared length (the route), and without one (chunked, the pattern).
            let path = round.isMultiple(of: 2) ? "pooled-isolation/next" : "chunked/60000"
            let expected = round.isMultiple(of: 2) ? Data(repeating: 0x11, count: 60_000) : pattern
            let next = try await client.send(.get(path)).body

            #expect(next == expected)
            #expect(next.withUnsafeBytes { $0.count } == 60_000)
            var grown = next
            grown.count = 65_536
            #expect(grown == expected + Data(count: 5_536), "bytes past the body's own length are zeros")
            var appended = next
            appended.append(0x22)
            #expect(appended == expected + [0x22])
        }
    }
}
