@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The cache key attacked through a request's own `Host` field (issue 35, after the partitioner):
/// the key is the URL, but the resource a server answers is named by the `Host` field curl sends
/// (RFC 9110 §7.2; the target URI of an origin-form request is built from it, RFC 9112 §3.3). A
/// request that sets `Host` is answered by another site — a virtual host on the same address —
/// and that site's answer is stored as the URL's, for every user and transport of the cache.
///
/// Crossed on `ddb4cb5`: the plain request got the other site's page, as a hit. The cache now
/// keeps out of requests that set `Host`.
@Suite("HTTP cache attacked: a Host field names another resource than the URL", .hangGuard, .serialized)
struct CacheHostFieldAttackTests {
    @Test("What another virtual host answered is not served for the URL's own host", arguments: ClientStyle.allCases)
    func anotherVirtualHostsAnswerIsNotTheURLs(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let site = CountedOrigin(server) { _, request in
            CountedOrigin.answer("site \(request.header("Host") ?? "-")", [("Cache-Control", "public, max-age=600")])
        }
        let cache = try HTTPCache(.memory(limit: 1 << 20))
        let attacker = Fixture.transport(server) { $0.cache = cache }
        let victim = Fixture.transport(server) { $0.cache = cache }
        let path = String(site.path.dropFirst())

        let planted = try await style.send(.get(path).header("Host", "evil.example"), through: attacker).get()
        let served = try await style.send(.get(path), through: victim).get()

        #expect(String(decoding: planted.body, as: UTF8.self) == "site evil.example" && planted.cacheStatus == .bypassed)
        #expect(String(decoding: served.body, as: UTF8.self) == "site 127.0.0.1:\(server.httpPort)", "the URL's own site answers it")
        #expect(served.cacheStatus == .miss, "the other site's answer is not the URL's")
    }
}
