@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Testing

/// A server's `Age` field attacked the cache (issue 35, trapping the process): `Age:
/// 9223372036854775807` fits an `Int`, so it was kept whole; as a `Double` it rounds up to 2^63,
/// and serving the response stale (an offline-first ``CachePolicy/returnCacheDataElseLoad``, a
/// request's `max-stale`) converted its age back with `Int(_:)`, which traps. With a disk cache
/// the entry outlives the process: every launch crashed on its first request for the URL.
///
/// On `ddb4cb5` the first test crashed the test process ("Double value cannot be converted to Int
/// because the result would be greater than Int.max", in `CachingEngine.begin`).
@Suite("HTTP cache attacked: an Age no clock can reach", .hangGuard, .serialized)
struct CacheAgeOverflowTests {
    /// The largest `Int`, which becomes 2^63 as a `Double`.
    static let hostileAge = String(Int.max)

    private func agedPage(_ server: TestServer) -> CountedOrigin {
        CountedOrigin(server) { n, _ in CountedOrigin.answer("page \(n)", [("Cache-Control", "max-age=60"), ("Age", Self.hostileAge)]) }
    }

    @Test("A stored response with a huge Age is served stale, not a trap", arguments: ClientStyle.allCases)
    func aHugeAgeIsServedStale(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let page = agedPage(server)
        let (transport, _) = try cachingTransport(server)
        let path = String(page.path.dropFirst())

        let stored = try await style.send(.get(path), through: transport).get()
        let offline = try await style.send(.get(path).cachePolicy(.returnCacheDataElseLoad), through: transport).get()
        let maxStale = try await style.send(.get(path).header("Cache-Control", "max-stale"), through: transport).get()

        #expect(stored.cacheStatus == .miss)
        for served in [offline, maxStale] {
            #expect(served.cacheStatus == .staleServed && String(decoding: served.body, as: UTF8.self) == "page 1")
            #expect(served.headerFields[HTTPField.Name("Age")!].flatMap { Int($0) }.map { $0 >= Int(Int32.max) } == true)
        }
        #expect(page.count == 1)
    }

    @Test("A disk entry with a huge Age does not crash the next cache that opens the directory")
    func aHugeAgeOnDiskIsServedStale() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await Fixture.server()
        let page = agedPage(server)
        let path = String(page.path.dropFirst())
        let first = try HTTPCache(.disk(directory: directory, limit: 1 << 20))
        _ = try await AsyncClient(transport: Fixture.transport(server) { $0.cache = first }).send(.get(path))
        try await offThePool { first.flush() }

        // The entry is read back from its file, as the next launch reads it.
        let next = try HTTPCache(.disk(directory: directory, limit: 1 << 20))
        let offline = try await AsyncClient(transport: Fixture.transport(server) { $0.cache = next })
            .send(.get(path).cachePolicy(.returnCacheDataElseLoad))

        #expect(offline.cacheStatus == .staleServed && String(decoding: offline.body, as: UTF8.self) == "page 1")
        #expect(page.count == 1)
    }

    @Test("Delta-seconds past 2^31 count as 2^31 - 1, whatever fits an Int (RFC 9111 §1.2.2)", arguments: [String(Int.max), "9223372036854775000", "99999999999999999999", "2147483648"])
    func deltaSecondsAreCapped(text: String) {
        #expect(CacheControl.seconds(Substring(text)) == Int(Int32.max))
        #expect(CacheFreshness.ageValue([HTTPField.Name("Age")!: text]) == Int(Int32.max))
        #expect(CacheControl([.cacheControl: "max-age=\(text)"]).maxAge == Int(Int32.max))
    }
}
