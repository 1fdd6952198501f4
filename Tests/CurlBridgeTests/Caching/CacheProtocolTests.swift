@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// RFC 9111 through the test server: what may be stored, variants, invalidation, request
/// directives, and where each response says it came from.
@Suite("HTTP cache: the protocol's rules end to end", .hangGuard, .serialized)
struct CacheProtocolTests {
    private func body(_ response: Response) -> String {
        String(decoding: response.body, as: UTF8.self)
    }

    @Test("no-store is never stored; no-cache is stored but revalidated every time")
    func noStoreAndNoCache() async throws {
        let server = try await Fixture.server()
        let noStore = CountedOrigin(server) { n, _ in CountedOrigin.answer("\(n)", [("Cache-Control", "no-store, max-age=60")]) }
        let noCache = CountedOrigin(server) { n, request in
            request.header("If-None-Match") == "\"x\""
                ? CountedOrigin.answer("", status: 304, [("ETag", "\"x\"")])
                : CountedOrigin.answer("\(n)", [("Cache-Control", "no-cache, max-age=60"), ("ETag", "\"x\"")])
        }
        let (transport, _) = try cachingTransport(server)
        let client = AsyncClient(transport: transport)

        _ = try await client.send(.get(String(noStore.path.dropFirst())))
        let notStored = try await client.send(.get(String(noStore.path.dropFirst())))
        _ = try await client.send(.get(String(noCache.path.dropFirst())))
        let revalidated = try await client.send(.get(String(noCache.path.dropFirst())))

        #expect(notStored.cacheStatus == .miss && body(notStored) == "2")
        #expect(revalidated.cacheStatus == .revalidated && body(revalidated) == "1")
        #expect(noCache.count == 2)
    }

    @Test("Vary keeps one variant per request header value; Vary: * is never reused")
    func varyVariants() async throws {
        let server = try await Fixture.server()
        let varying = CountedOrigin(server) { _, request in
            CountedOrigin.answer("in \(request.header("Accept-Language") ?? "none")", [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
        }
        let star = CountedOrigin(server) { n, _ in CountedOrigin.answer("\(n)", [("Cache-Control", "max-age=60"), ("Vary", "*")]) }
        let (transport, _) = try cachingTransport(server)
        let client = AsyncClient(transport: transport)
        let path = String(varying.path.dropFirst())

        let english = try await client.send(.get(path).header("Accept-Language", "en"))
        let french = try await client.send(.get(path).header("Accept-Language", "fr"))
        let englishAgain = try await client.send(.get(path).header("Accept-Language", "en"))
        let frenchAgain = try await client.send(.get(path).header("Accept-Language", "fr"))
        _ = try await client.send(.get(String(star.path.dropFirst())))
        let starAgain = try await client.send(.get(String(star.path.dropFirst())))

        #expect([english, french].map(\.cacheStatus) == [.miss, .miss])
        #expect([englishAgain, frenchAgain].map(\.cacheStatus) == [.hit, .hit])
        #expect(body(englishAgain) == "in en" && body(frenchAgain) == "in fr")
        #expect(starAgain.cacheStatus == .miss && body(starAgain) == "2")
    }

    @Test("A successful POST invalidates the stored GET of its URL and of its same-origin Location")
    func unsafeMethodInvalidates() async throws {
        let server = try await Fixture.server()
        let other = CountedOrigin(server) { n, _ in CountedOrigin.answer("other \(n)", [("Cache-Control", "max-age=60")]) }
        let target = CountedOrigin(server) { n, request in
            request.method == "POST"
                ? CountedOrigin.answer("posted", status: 201, [("Location", other.path)])
                : CountedOrigin.answer("target \(n)", [("Cache-Control", "max-age=60")])
        }
        let (transport, _) = try cachingTransport(server)
        let client = AsyncClient(transport: transport)
        let targetPath = String(target.path.dropFirst())
        _ = try await client.send(.get(targetPath))
        _ = try await client.send(.get(String(other.path.dropFirst())))

        let posted = try await client.send(.post(targetPath).body(Data("x".utf8)))
        let targetAfter = try await client.send(.get(targetPath))
        let otherAfter = try await client.send(.get(String(other.path.dropFirst())))

        #expect(posted.cacheStatus == .bypassed)
        #expect(targetAfter.cacheStatus == .miss && body(targetAfter) == "target 3")
        #expect(otherAfter.cacheStatus == .miss && body(otherAfter) == "other 2")
    }

    @Test("A response to a request with Authorization is stored only when it says it may be (public)")
    func authorizationIsNotStoredUnlessAllowed() async throws {
        let server = try await Fixture.server()
        let plain = CountedOrigin(server) { n, _ in CountedOrigin.answer("\(n)", [("Cache-Control", "max-age=60")]) }
        let allowed = CountedOrigin(server) { n, _ in CountedOrigin.answer("\(n)", [("Cache-Control", "public, max-age=60")]) }
        let (transport, _) = try cachingTransport(server)
        let client = AsyncClient(transport: transport)
        func authorized(_ origin: CountedOrigin) -> Request {
            .get(String(origin.path.dropFirst())).header("Authorization", "Bearer secret")
        }

        _ = try await client.send(authorized(plain))
        let notStored = try await client.send(authorized(plain))
        _ = try await client.send(authorized(allowed))
        let stored = try await client.send(authorized(allowed))

        #expect(notStored.cacheStatus == .miss && plain.count == 2)
        #expect(stored.cacheStatus == .hit && allowed.count == 1)
    }

    @Test("Request directives: no-cache revalidates, max-age=0 revalidates, max-stale serves stale, only-if-cached answers 504")
    func requestDirectives() async throws {
        let server = try await Fixture.server()
        let origin = CountedOrigin(server) { n, request in
            request.header("If-None-Match") == "\"v\""
                ? CountedOrigin.answer("", status: 304, [("ETag", "\"v\""), ("Cache-Control", "max-age=10")])
                : CountedOrigin.answer("\(n)", [("Cache-Control", "max-age=10"), ("ETag", "\"v\"")])
        }
        let unknown = CountedOrigin(server) { n, _ in CountedOrigin.answer("\(n)", []) }
        let clock = CacheClock()
        let (transport, _) = try cachingTransport(server, clock: clock)
        let client = AsyncClient(transport: transport)
        let path = String(origin.path.dropFirst())
        _ = try await client.send(.get(path))

        let noCache = try await client.send(.get(path).header("Cache-Control", "no-cache"))
        let maxAgeZero = try await client.send(.get(path).header("Cache-Control", "max-age=0"))
        clock.advance(30)
        let maxStale = try await client.send(.get(path).header("Cache-Control", "max-stale=60"))
        let tooStale = try await client.send(.get(path).header("Cache-Control", "max-stale=5"))
        let onlyIfCached = try await client.send(.get(String(unknown.path.dropFirst())).header("Cache-Control", "only-if-cached"))

        #expect(noCache.cacheStatus == .revalidated)
        #expect(maxAgeZero.cacheStatus == .revalidated)
        #expect(maxStale.cacheStatus == .staleServed)
        #expect(tooStale.cacheStatus == .revalidated)
        #expect(onlyIfCached.status.code == 504 && unknown.count == 0)
        #expect(origin.count == 4)
    }

    @Test("A cached redirect is followed from the cache to a cached target")
    func redirectFromTheCache() async throws {
        let server = try await Fixture.server()
        let target = CountedOrigin(server) { n, _ in CountedOrigin.answer("target \(n)", [("Cache-Control", "max-age=60")]) }
        let moved = CountedOrigin(server) { _, _ in CountedOrigin.answer("", status: 301, [("Location", target.path), ("Cache-Control", "max-age=60")]) }
        let (transport, _) = try cachingTransport(server)
        let client = AsyncClient(transport: transport)

        let first = try await client.send(.get(String(moved.path.dropFirst())))
        let second = try await client.send(.get(String(moved.path.dropFirst())))

        #expect(body(first) == "target 1" && body(second) == "target 1")
        #expect(second.cacheStatus == .hit && second.redirects.count == 1)
        #expect(moved.count == 1 && target.count == 1)
    }

    @Test("The log's completion line and event monitors say where the response came from")
    func observersSeeTheCacheStatus() async throws {
        let server = try await Fixture.server()
        let origin = CountedOrigin(server) { _, _ in CountedOrigin.answer("x", [("Cache-Control", "max-age=60")]) }
        let capture = LogCapture()
        let statuses = PosixLock<[CacheStatus]>([])
        let monitor = ClosureEventMonitor(requestDidComplete: { _, _, result, _ in
            if case .success(let response) = result { statuses.withLock { $0.append(response.cacheStatus) } }
        })
        let (transport, _) = try cachingTransport(server) {
            $0.logger = capture.logger(level: .debug)
            $0.eventMonitors = [monitor]
        }
        let client = AsyncClient(transport: transport)

        _ = try await client.send(.get(String(origin.path.dropFirst())))
        _ = try await client.send(.get(String(origin.path.dropFirst())))

        let seen = await poll(within: .seconds(60), until: { statuses.withLock { $0.count } == 2 })
        #expect(seen)
        #expect(statuses.withLock { $0 } == [.miss, .hit])
        let completions = capture.lines.filter { $0.message == "request completed" }
        #expect(completions.map { $0.metadata["curlbridge.cache"] } == ["miss", "hit"], "\(completions)")
    }
}
