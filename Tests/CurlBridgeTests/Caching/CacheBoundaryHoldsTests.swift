@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Attacks on the cache's partitions that hold (issue 35, after the partitioner), kept so that
/// they go on holding: routes that reach another server for the same URL (a proxy, a Unix
/// socket), a broader set of trust roots, requests that leave the jar out or have none,
/// credentials an interceptor or the configuration adds, and a personal redirect.
@Suite("HTTP cache: boundaries that hold", .hangGuard, .serialized)
struct CacheBoundaryHoldsTests {
    private func body(_ result: Result<Response, RequestError>) -> String? {
        (try? result.get()).map { String(decoding: $0.body, as: UTF8.self) }
    }

    /// A page that names the server that answered it, storable by anyone for ten minutes.
    private func namedPage(_ server: TestServer, name: String, path: String) {
        server.route(path) { _ in
            RouteResponse(status: 200, headers: [(name: "Cache-Control", value: "public, max-age=600")], body: Data("\(name)'s page".utf8))
        }
    }

    @Test("What a proxy relayed from another server is not served for the URL to a transport without the proxy", arguments: ClientStyle.allCases)
    func aProxysAnswerStaysWithTheProxy(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let impostor = try await Fixture.otherServer()
        let path = "/cached/\(UUID().uuidString)"
        namedPage(server, name: "origin", path: path)
        namedPage(impostor, name: "impostor", path: path)
        // The proxy connects to the impostor whatever the request's host: the URL names the origin.
        let proxy = try await TestProxy.start(upstream: ("127.0.0.1", impostor.httpPort))
        let cache = try HTTPCache(.memory(limit: 1 << 20))
        let proxied = Fixture.transport(server) {
            $0.cache = cache
            $0.proxy = .through(.http(host: "127.0.0.1", port: proxy.httpPort))
        }
        let direct = Fixture.transport(server) { $0.cache = cache }
        let url = "http://127.0.0.1:\(server.httpPort)\(path)"

        let relayed = await style.send(.get(url), through: proxied)
        let fetched = await style.send(.get(url), through: direct)

        #expect(body(relayed) == "impostor's page")
        #expect(body(fetched) == "origin's page" && (try? fetched.get())?.cacheStatus == .miss)
        try await proxy.shutdown()
    }

    @Test("What came through a Unix socket is not served for the URL over TCP, nor the reverse", arguments: ClientStyle.allCases)
    func aUnixSocketsAnswerStaysWithTheSocket(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let page = CountedOrigin(server) { n, _ in CountedOrigin.answer("answer \(n)", [("Cache-Control", "public, max-age=600")]) }
        let cache = try HTTPCache(.memory(limit: 1 << 20))
        let overSocket = Fixture.transport(server) {
            $0.cache = cache
            $0.unixSocketPath = server.unixSocketPath
        }
        let overTCP = Fixture.transport(server) { $0.cache = cache }
        let path = String(page.path.dropFirst())

        let socket = await style.send(.get(path), through: overSocket)
        let tcp = await style.send(.get(path), through: overTCP)
        let socketAgain = await style.send(.get(path), through: overSocket)

        #expect(body(socket) == "answer 1" && body(tcp) == "answer 2")
        #expect((try? socketAgain.get())?.cacheStatus == .hit && body(socketAgain) == "answer 1")
    }

    @Test("A response fetched trusting the system's CAs and one more never answers a transport that trusts that one alone", arguments: ClientStyle.allCases)
    func broaderTrustRootsNeverAnswerNarrowerOnes(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let page = CountedOrigin(server) { n, _ in CountedOrigin.answer("answer \(n)", [("Cache-Control", "public, max-age=600")]) }
        let cache = try HTTPCache(.memory(limit: 1 << 20))
        let broad = Fixture.transport(server, tls: true) {
            $0.cache = cache
            $0.tls = TLSConfiguration(trustRoots: .systemAdding(Fixture.testCA))
        }
        let narrow = Fixture.transport(server, tls: true) {
            $0.cache = cache
            $0.tls = TLSConfiguration(trustRoots: .replacingSystem(with: Fixture.testCA))
        }
        let path = String(page.path.dropFirst())

        let fromBroad = await style.send(.get(path), through: broad)
        let fromNarrow = await style.send(.get(path), through: narrow)

        #expect(body(fromBroad) == "answer 1")
        #expect(body(fromNarrow) == "answer 2" && (try? fromNarrow.get())?.cacheStatus == .miss)
    }

    @Test("Alice's cookie page goes neither to her own request without the jar nor to a transport without cookies", arguments: ClientStyle.allCases)
    func requestsWithoutTheJarAreOtherPartitions(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let login = CountedOrigin(server) { _, _ in CountedOrigin.answer("welcome", [("Set-Cookie", "session=alice; Path=/")]) }
        let me = CountedOrigin(server) { _, request in
            CountedOrigin.answer("page of \(request.header("Cookie") ?? "anonymous")", [("Cache-Control", "private, max-age=600")])
        }
        let cache = try HTTPCache(.memory(limit: 1 << 20))
        let alice = Fixture.transport(server) { $0.cache = cache }
        let cookieless = Fixture.transport(server) {
            $0.cache = cache
            $0.cookies = .disabled
        }
        let path = String(me.path.dropFirst())

        _ = try await style.send(.get(String(login.path.dropFirst())), through: alice).get()
        let hers = await style.send(.get(path), through: alice)
        let withoutTheJar = await style.send(.get(path).cookies(false), through: alice)
        let withoutAJar = await style.send(.get(path), through: cookieless)
        let ownCookie = await style.send(.get(path).header("Cookie", "session=mallory"), through: cookieless)

        #expect(body(hers) == "page of session=alice")
        #expect(body(withoutTheJar) == "page of anonymous")
        #expect(body(withoutAJar) == "page of anonymous" && (try? withoutAJar.get())?.cacheStatus == .hit, "the anonymous page, stored by the request without the jar")
        #expect(body(ownCookie) == "page of session=mallory")
        #expect(me.count == 3)
    }

    static let credentialSources = ["interceptor", "configuration"]

    @Test("Tokens an interceptor or the configuration adds partition the cache like the request's own", arguments: credentialSources)
    func addedCredentialsPartitionTheCache(source: String) async throws {
        let server = try await Fixture.server()
        let page = CountedOrigin(server) { _, request in
            guard let authorization = request.header("Authorization") else {
                return CountedOrigin.answer("who are you?", status: 401, [("Cache-Control", "public, max-age=600")])
            }
            return CountedOrigin.answer("page of \(authorization)", [("Cache-Control", "public, max-age=600")])
        }
        let cache = try HTTPCache(.memory(limit: 1 << 20))
        func transport(token: String?) -> Transport {
            Fixture.transport(server) { configuration in
                configuration.cache = cache
                guard let token else { return }
                if source == "interceptor" {
                    let authenticator = TestAuthenticator { token, _ in token }
                    configuration.interceptors = [AuthenticationInterceptor(authenticator: authenticator, credential: TestToken(value: token))]
                } else {
                    configuration.credentials[Credential.Origin("http://127.0.0.1:\(server.httpPort)")!] = .bearer(token)
                }
            }
        }
        let path = String(page.path.dropFirst())

        let alice = await ClientStyle.async.send(.get(path), through: transport(token: "alice-token"))
        let aliceAgain = await ClientStyle.async.send(.get(path), through: transport(token: "alice-token"))
        let bob = await ClientStyle.async.send(.get(path), through: transport(token: "bob-token"))
        let anonymous = await ClientStyle.async.send(.get(path), through: transport(token: nil))

        #expect(body(alice) == "page of Bearer alice-token" && (try? aliceAgain.get())?.cacheStatus == .hit)
        #expect(body(bob) == "page of Bearer bob-token")
        #expect((try? anonymous.get())?.status == .unauthorized)
        #expect(page.count == 3)
    }

    @Test("A personal redirect stored for alice is not replayed to bob or to an anonymous request", arguments: ClientStyle.allCases)
    func aPersonalRedirectStaysWithItsUser(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let home = CountedOrigin(server) { _, request in
            CountedOrigin.answer("home of \(request.header("Authorization") ?? "anonymous")", [("Cache-Control", "public, max-age=600")])
        }
        // /start sends each user to a home of their own (stored: public, ten minutes).
        let start = CountedOrigin(server) { _, request in
            let user = request.header("Authorization").map { String($0.dropFirst("Bearer ".count)) } ?? "nobody"
            return CountedOrigin.answer("", status: 302, [("Location", "\(home.path)?user=\(user)"), ("Cache-Control", "public, max-age=600")])
        }
        let (transport, _) = try cachingTransport(server)
        let path = String(start.path.dropFirst())

        let alice = await style.send(.get(path).bearerToken("alice"), through: transport)
        let aliceAgain = await style.send(.get(path).bearerToken("alice"), through: transport)
        let bob = await style.send(.get(path).bearerToken("bob"), through: transport)
        let anonymous = await style.send(.get(path), through: transport)

        #expect(body(alice) == "home of Bearer alice" && (try? aliceAgain.get())?.cacheStatus == .hit)
        #expect((try? bob.get())?.url.hasSuffix("user=bob") == true && body(bob) == "home of Bearer bob")
        #expect((try? anonymous.get())?.url.hasSuffix("user=nobody") == true && body(anonymous) == "home of anonymous")
        #expect(start.count == 3)
    }
}
