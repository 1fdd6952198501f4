@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The cache's partition attacked where it guesses which cookies curl sends (issue 35, after the
/// partitioner): `CachePartitioner` asks the jar (`CookieJar.cookies(for:)`, the library's own
/// parser and matcher) when the request begins, while curl picks the cookies itself, with its own
/// rules, when it writes the request. Wherever the two differ, curl sends alice's session cookie,
/// the partition says "no cookies", and alice's private page is stored where every anonymous
/// request of every transport sharing the cache is answered from.
///
/// Every test here crossed on `ddb4cb5` (the stranger got alice's page). The cache now stores a
/// response only when the cookies curl sent make the partition it was looked up with, keeps out
/// of requests that set `Host`, and the jar lists and matches paths as curl does.
@Suite("HTTP cache attacked: the partition guesses curl's cookies wrong", .hangGuard, .serialized)
struct CacheCookieGuessAttackTests {
    private func body(_ result: Result<Response, RequestError>) -> String? {
        (try? result.get()).map { String(decoding: $0.body, as: UTF8.self) }
    }

    /// An account page that greets whoever the request's cookies name, private to its user as the
    /// server says it (`private`, `Vary: Cookie`), and a login at `<page>/login` that sets alice's
    /// session with the `Set-Cookie` value `cookie` makes from the page's path.
    private func sessionSite(_ server: TestServer, cookie: @escaping @Sendable (String) -> String) -> CountedOrigin {
        let account = CountedOrigin(server) { _, request in
            CountedOrigin.answer(
                "page of \(request.header("Cookie") ?? "anonymous")", [("Cache-Control", "private, max-age=600"), ("Vary", "Cookie")])
        }
        let path = account.path
        server.route(path + "/login") { _ in
            RouteResponse(status: 200, headers: [(name: "Set-Cookie", value: cookie(path))], body: Data("welcome".utf8))
        }
        return account
    }

    /// Two transports on one cache: alice's, and a stranger's without cookies.
    private func aliceAndStranger(_ server: TestServer, _ adjust: (inout Configuration) -> Void = { _ in }) throws -> (Transport, Transport) {
        let cache = try HTTPCache(.memory(limit: 1 << 20))
        let alice = Fixture.transport(server) {
            $0.cache = cache
            adjust(&$0)
        }
        let stranger = Fixture.transport(server) { $0.cache = cache }
        return (alice, stranger)
    }

    @Test("A cookie whose Path ends in a slash is sent by curl to the directory itself, and counted by no partition", arguments: ClientStyle.allCases)
    func cookiePathWithATrailingSlash(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        // Path=/account/ is common; curl drops the slash before matching (sanitize_cookie_path),
        // `Cookie.pathMatches` does not, so /account carries the cookie the jar says it does not.
        let account = sessionSite(server) { "session=alice; Path=\($0)/" }
        let (alice, stranger) = try aliceAndStranger(server)
        let path = String(account.path.dropFirst())

        _ = try await style.send(.get(path + "/login"), through: alice).get()
        let alicesPage = await style.send(.get(path), through: alice)
        let strangersPage = await style.send(.get(path), through: stranger)

        #expect(body(alicesPage) == "page of session=alice", "curl sends alice's cookie to the page")
        #expect(body(strangersPage) == "page of anonymous", "the stranger must not get alice's page")
        #expect(account.count == 2)
    }

    static let unlistedPaths = ["relative", "quoted"]

    @Test("A cookie curl keeps with a Path the jar once could not list (without a leading slash, quoted) is listed and partitions", arguments: unlistedPaths)
    func cookieTheJarCannotList(kind: String) async throws {
        let server = try await Fixture.server()
        // curl lists the Path as the server wrote it (`account`, `"/cached/…"`) and matches on its
        // sanitised form ("/" and the unquoted path); `Cookie(netscapeLine:)` refused a path not
        // starting with "/", so the jar listed no cookie at all.
        let account = sessionSite(server) { path in kind == "relative" ? "session=alice; Path=account" : "session=alice; Path=\"\(path)\"" }
        let (alice, stranger) = try aliceAndStranger(server)
        let path = String(account.path.dropFirst())
        let client = AsyncClient(transport: alice)

        _ = try await client.send(.get(path + "/login"))
        let alicesPage = try await client.send(.get(path))
        let strangersPage = await ClientStyle.async.send(.get(path), through: stranger)
        let listed = try alice.cookies?.cookies().count

        #expect(String(decoding: alicesPage.body, as: UTF8.self) == "page of session=alice", "curl sends alice's cookie to the page")
        #expect(body(strangersPage) == "page of anonymous", "the stranger must not get alice's page")
        #expect(listed == 1, "the jar lists every cookie curl holds and sends")
    }

    @Test("Dot segments in the URL: curl sends the cookie of the path it resolves to, the partition matches the path as written", arguments: ClientStyle.allCases)
    func dotSegmentsInTheURL(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let account = sessionSite(server) { "session=alice; Path=\($0)" }
        let (alice, stranger) = try aliceAndStranger(server)
        let path = String(account.path.dropFirst())
        // curl removes `elsewhere/..` before it sends and before it picks cookies; the URL is the
        // cache key as written, and the jar is asked about `/elsewhere/../cached/…`.
        let url = "http://127.0.0.1:\(server.httpPort)/elsewhere/..\(account.path)"

        _ = try await style.send(.get(path + "/login"), through: alice).get()
        let alicesPage = await style.send(.get(url), through: alice)
        let strangersPage = await style.send(.get(url), through: stranger)

        #expect(body(alicesPage) == "page of session=alice", "curl sends alice's cookie to the page")
        #expect(body(strangersPage) == "page of anonymous", "the stranger must not get alice's page")
    }

    @Test("A request's Host field chooses the cookies curl sends; the partition asks the jar about the URL's host", arguments: ClientStyle.allCases)
    func hostFieldChoosesTheCookies(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let account = sessionSite(server) { _ in "session=alice; Path=/" }
        let (alice, stranger) = try aliceAndStranger(server)
        let path = String(account.path.dropFirst())
        // A virtual host reached by address, as services behind a load balancer are: curl stores
        // and sends cookies for the Host field's name (`cookiehost`), not for 127.0.0.1.
        func virtualHost(_ path: String) -> Request { .get(path).header("Host", "shop.example") }

        _ = try await style.send(virtualHost(path + "/login"), through: alice).get()
        let alicesPage = await style.send(virtualHost(path), through: alice)
        let strangersPage = await style.send(virtualHost(path), through: stranger)

        #expect(body(alicesPage) == "page of session=alice", "curl sends alice's cookie to the page")
        #expect(body(strangersPage) == "page of anonymous", "the stranger must not get alice's page")
    }

    @Test("A cookie set while the request waits for a connection goes with it, but the partition was taken before", arguments: ClientStyle.allCases)
    func cookieSetWhileTheRequestWaitsForAConnection(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let gate = DispatchSemaphore(value: 0)
        // The login's answer waits for the test (bounded: a broken test must not hang the server).
        let login = CountedOrigin(server) { _, _ in
            _ = gate.wait(timeout: .now() + 60)
            return CountedOrigin.answer("welcome", [("Set-Cookie", "session=alice; Path=/")])
        }
        let account = CountedOrigin(server) { _, request in
            CountedOrigin.answer(
                "page of \(request.header("Cookie") ?? "anonymous")", [("Cache-Control", "private, max-age=600"), ("Vary", "Cookie")])
        }
        // One connection per host: the page waits in curl for the login's connection, and curl
        // writes its request, with the jar's cookies of that moment, only once the login is done.
        let (alice, stranger) = try aliceAndStranger(server) { $0.connectionLimits = ConnectionLimits(perHost: 1) }

        async let loggedIn = AsyncClient(transport: alice).send(.get(String(login.path.dropFirst())))
        #expect(await poll(within: .seconds(60), until: { login.count == 1 }))
        async let alicesPage = style.send(.get(String(account.path.dropFirst())), through: alice)
        try await alice.waitUntilInFlight(2, then: { gate.signal() })
        _ = try await loggedIn
        let page = await alicesPage
        let strangersPage = await style.send(.get(String(account.path.dropFirst())), through: stranger)

        #expect(body(page) == "page of session=alice", "curl sent the cookie the login had just set")
        #expect(body(strangersPage) == "page of anonymous", "the stranger must not get alice's page")
    }
}
