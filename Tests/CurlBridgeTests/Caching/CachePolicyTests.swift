@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Each request's `NSURLRequest`-style policy, through the test server.
@Suite("HTTP cache: the five cache policies", .hangGuard, .serialized)
struct CachePolicyTests {
    /// A resource fresh for 10 seconds with an `ETag`, answering `304` to its validator.
    private func validatingOrigin(_ server: TestServer) -> CountedOrigin {
        CountedOrigin(server) { number, request in
            if request.header("If-None-Match") == "\"v1\"" {
                return CountedOrigin.answer("", status: 304, [("ETag", "\"v1\"")])
            }
            return CountedOrigin.answer("body \(number)", [("Cache-Control", "max-age=10"), ("ETag", "\"v1\"")])
        }
    }

    private func send(_ request: Request, _ transport: Transport) async throws -> Response {
        try await AsyncClient(transport: transport).send(request)
    }

    @Test("reloadIgnoringCacheData sends an unconditional request and stores its answer")
    func reloadIgnoringCacheData() async throws {
        let server = try await Fixture.server()
        let origin = validatingOrigin(server)
        let (transport, _) = try cachingTransport(server)
        let request = Request.get(String(origin.path.dropFirst()))
        _ = try await send(request, transport)

        let reloaded = try await send(request.cachePolicy(.reloadIgnoringCacheData), transport)
        let after = try await send(request, transport)

        #expect(reloaded.cacheStatus == .miss)
        #expect(String(decoding: reloaded.body, as: UTF8.self) == "body 2")
        #expect(origin.requests[1].header("If-None-Match") == nil)
        #expect(after.cacheStatus == .hit)
        #expect(String(decoding: after.body, as: UTF8.self) == "body 2", "the reload's answer replaced the stored one")
    }

    @Test("reloadRevalidatingCacheData revalidates a response that is still fresh")
    func reloadRevalidatingCacheData() async throws {
        let server = try await Fixture.server()
        let origin = validatingOrigin(server)
        let (transport, _) = try cachingTransport(server)
        let request = Request.get(String(origin.path.dropFirst()))
        _ = try await send(request, transport)

        let revalidated = try await send(request.cachePolicy(.reloadRevalidatingCacheData), transport)

        #expect(revalidated.cacheStatus == .revalidated)
        #expect(String(decoding: revalidated.body, as: UTF8.self) == "body 1")
        #expect(origin.count == 2)
    }

    @Test("returnCacheDataElseLoad answers with a stale response, and loads only what is not stored")
    func returnCacheDataElseLoad() async throws {
        let server = try await Fixture.server()
        let origin = validatingOrigin(server)
        let clock = CacheClock()
        let (transport, _) = try cachingTransport(server, clock: clock)
        let request = Request.get(String(origin.path.dropFirst())).cachePolicy(.returnCacheDataElseLoad)

        let loaded = try await send(request, transport)
        clock.advance(3600)
        let stale = try await send(request, transport)

        #expect(loaded.cacheStatus == .miss)
        #expect(stale.cacheStatus == .staleServed)
        #expect(String(decoding: stale.body, as: UTF8.self) == "body 1")
        #expect(origin.count == 1)
    }

    @Test("returnCacheDataDontLoad answers from the cache or fails with notCached, sending nothing")
    func returnCacheDataDontLoad() async throws {
        let server = try await Fixture.server()
        let origin = validatingOrigin(server)
        let (transport, _) = try cachingTransport(server)
        let request = Request.get(String(origin.path.dropFirst()))

        let miss = await ClientStyle.async.send(request.cachePolicy(.returnCacheDataDontLoad), through: transport)
        _ = try await send(request, transport)
        let hit = try await send(request.cachePolicy(.returnCacheDataDontLoad), transport)

        #expect(miss.failure?.code == .notCached)
        #expect(hit.cacheStatus == .hit)
        #expect(origin.count == 1)
    }

    @Test("Without a cache, returnCacheDataDontLoad fails in every style and every response is bypassed", arguments: ClientStyle.allCases)
    func noCache(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let origin = validatingOrigin(server)
        let transport = Fixture.transport(server)
        let request = Request.get(String(origin.path.dropFirst()))

        let refused = await style.send(request.cachePolicy(.returnCacheDataDontLoad), through: transport)
        let sent = try await style.send(request, through: transport).get()

        #expect(refused.failure?.code == .notCached)
        #expect(sent.cacheStatus == .bypassed)
        #expect(origin.count == 1)
    }
}
