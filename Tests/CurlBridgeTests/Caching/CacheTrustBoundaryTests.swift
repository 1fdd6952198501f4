@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The cache attacked as the security review attacked it (issue 35): one user's response asked
/// for by another, by an anonymous request and after a logout, through cookies, challenged
/// credentials and user info; a response fetched under weak TLS asked for under a pin; and what
/// a disk cache keeps of secrets.
@Suite("HTTP cache: who may see a stored response", .hangGuard, .serialized)
struct CacheTrustBoundaryTests {
    private func body(_ result: Result<Response, RequestError>) -> String? {
        (try? result.get()).map { String(decoding: $0.body, as: UTF8.self) }
    }

    /// A page that greets whoever the request's credentials name, `Basic` challenged when there
    /// are none, stored as the server allows (`public`: even a shared cache may keep it).
    private func personalPage(_ server: TestServer, vary: String) -> CountedOrigin {
        CountedOrigin(server) { _, request in
            guard let authorization = request.header("Authorization"), authorization.hasPrefix("Basic "),
                  let decoded = Data(base64Encoded: String(authorization.dropFirst(6))),
                  let user = String(decoding: decoded, as: UTF8.self).split(separator: ":").first
            else {
                return CountedOrigin.answer("who are you?", status: 401, [("WWW-Authenticate", "Basic realm=\"me\"")])
            }
            return CountedOrigin.answer("page of \(user)", [("Cache-Control", "public, max-age=600"), ("Vary", vary)])
        }
    }

    @Test("One user's cookie page is served neither to another transport's anonymous request nor after a logout", arguments: ClientStyle.allCases)
    func cookiesPartitionTheCache(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let login = CountedOrigin(server) { _, _ in CountedOrigin.answer("welcome", [("Set-Cookie", "session=alice; Path=/")]) }
        let me = CountedOrigin(server) { _, request in
            CountedOrigin.answer("page of \(request.header("Cookie") ?? "anonymous")", [("Cache-Control", "private, max-age=600"), ("Vary", "Cookie")])
        }
        let cache = try HTTPCache(.memory(limit: 1 << 20))
        let alice = Fixture.transport(server) { $0.cache = cache }
        let stranger = Fixture.transport(server) { $0.cache = cache }

        _ = try await style.send(.get(String(login.path.dropFirst())), through: alice).get()
        let first = await style.send(.get(String(me.path.dropFirst())), through: alice)
        let again = await style.send(.get(String(me.path.dropFirst())), through: alice)
        let other = await style.send(.get(String(me.path.dropFirst())), through: stranger)
        try alice.cookies?.deleteAll()
        let afterLogout = await style.send(.get(String(me.path.dropFirst())), through: alice)

        #expect(body(first) == "page of session=alice" && body(again) == "page of session=alice")
        #expect((try? again.get())?.cacheStatus == .hit, "the same user gets her own page from the cache")
        #expect(body(other) == "page of anonymous", "another transport without the cookie")
        #expect(body(afterLogout) == "page of anonymous", "the same transport after its cookie is gone")
        #expect(me.count == 2, "alice's page and the anonymous one, each fetched once")
    }

    @Test("A challenged credential's page goes to that user only (Vary: Authorization compares what curl sends)", arguments: ClientStyle.allCases)
    func challengedCredentialsPartitionTheCache(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let page = personalPage(server, vary: "Authorization")
        let (transport, _) = try cachingTransport(server)
        let path = String(page.path.dropFirst())
        func asUser(_ name: String) -> Request {
            .get(path).credential(.challenged(username: name, password: "pw-\(name)", schemes: .any))
        }

        let alice = await style.send(asUser("alice"), through: transport)
        let aliceAgain = await style.send(asUser("alice"), through: transport)
        let bob = await style.send(asUser("bob"), through: transport)
        let anonymous = await style.send(.get(path), through: transport)

        #expect(body(alice) == "page of alice" && body(aliceAgain) == "page of alice")
        #expect((try? aliceAgain.get())?.cacheStatus == .hit)
        #expect(body(bob) == "page of bob")
        #expect((try? anonymous.get())?.status == .unauthorized, "no credential: the server's challenge, not alice's page")
    }

    @Test("User info in the URL is a credential: alice's page is not bob's nor an anonymous request's", arguments: ClientStyle.allCases)
    func userInfoPartitionsTheCache(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let page = personalPage(server, vary: "Accept")
        let (transport, _) = try cachingTransport(server)
        func url(_ userInfo: String) -> String { "http://\(userInfo)127.0.0.1:\(server.httpPort)\(page.path)" }

        let alice = await style.send(.get(url("alice:hunter2@")), through: transport)
        let aliceAgain = await style.send(.get(url("alice:hunter2@")), through: transport)
        let bob = await style.send(.get(url("bob:pw@")), through: transport)
        let anonymous = await style.send(.get(url("")), through: transport)

        #expect(body(alice) == "page of alice" && (try? aliceAgain.get())?.cacheStatus == .hit)
        #expect(body(bob) == "page of bob")
        #expect((try? anonymous.get())?.status == .unauthorized)
        #expect(page.count == 3)
    }

    @Test("A response fetched with verification off never answers a pinned request", arguments: ClientStyle.allCases)
    func aHitNeverSkipsThePins(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let pinned = CountedOrigin(server) { n, _ in CountedOrigin.answer("public \(n)", [("Cache-Control", "public, max-age=600")]) }
        let cache = try HTTPCache(.memory(limit: 1 << 20))
        let insecure = Fixture.transport(server, tls: true) {
            $0.cache = cache
            $0.tls.disablesCertificateVerification = true
        }
        let wrongPin = try Pinning.publicKeys(["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="])
        let pinnedTransport = Fixture.transport(server, tls: true) {
            $0.cache = cache
            $0.tls.pins["127.0.0.1"] = wrongPin
        }
        let rightlyPinned = Fixture.transport(server, tls: true) {
            $0.cache = cache
            $0.tls.pins["127.0.0.1"] = try? Pinning.publicKeys([TestServer.serverPublicKeyPin])
        }
        let path = String(pinned.path.dropFirst())

        let stored = await style.send(.get(path), through: insecure)
        let byTheTransportsPin = await style.send(.get(path), through: pinnedTransport)
        let byTheRequestsPin = await style.send(.get(path).pinning(wrongPin), through: insecure)
        let underTheRightPin = await style.send(.get(path), through: rightlyPinned)

        #expect((try? stored.get())?.cacheStatus == .miss)
        #expect(byTheTransportsPin.failure?.code == .pinningMismatch, "\(byTheTransportsPin)")
        #expect(byTheRequestsPin.failure?.code == .pinningMismatch, "\(byTheRequestsPin)")
        #expect((try? underTheRightPin.get())?.cacheStatus == .miss, "fetched under its own trust")
        #expect(pinned.count == 2)
    }

    @Test("Set-Cookie is never stored: a hit carries no cookie, and the jar stays as the user left it", arguments: ClientStyle.allCases)
    func setCookieIsNeverStored(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let page = CountedOrigin(server) { n, _ in
            CountedOrigin.answer("\(n)", [("Cache-Control", "max-age=600"), ("Set-Cookie", "token=t\(n); Path=/")])
        }
        let (transport, _) = try cachingTransport(server)
        let path = String(page.path.dropFirst())

        let miss = try await style.send(.get(path), through: transport).get()
        try transport.cookies?.deleteAll()
        let hit = try await style.send(.get(path), through: transport).get()

        #expect(miss.headerFields[.setCookie] == "token=t1; Path=/", "the network's response is passed on whole")
        #expect(hit.cacheStatus == .hit && hit.headerFields[.setCookie] == nil)
        #expect(try transport.cookies?.cookies().isEmpty == true)
    }

    @Test("A disk cache keeps no user info, no Set-Cookie and no value of a Vary-named header")
    func noSecretsAtRest() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await Fixture.server()
        let page = CountedOrigin(server) { _, _ in
            CountedOrigin.answer(
                "ok", [("Cache-Control", "public, max-age=600"), ("Vary", "X-Api-Key, Authorization"), ("Set-Cookie", "session=sekrit-cookie")])
        }
        let (transport, cache) = try cachingTransport(server, storage: .disk(directory: directory, limit: 1 << 20))
        let url = "http://alice:hunter2@127.0.0.1:\(server.httpPort)\(page.path)"
        // Out of the jar: the response's cookie would otherwise make the next request another user's.
        let request = Request.get(url).header("X-Api-Key", "key-secret").cookies(false)

        _ = try await AsyncClient(transport: transport).send(request)
        let fromMemory = try await AsyncClient(transport: transport).send(request)
        _ = try await AsyncClient(transport: transport).send(.get(String(page.path.dropFirst())).bearerToken("bearer-secret"))
        try await offThePool { cache.flush() }

        // A password (here user info) would sit beside the key as a keyed hash, a verifier of
        // guesses: its response is kept in memory only.
        #expect(fromMemory.cacheStatus == .hit)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.filter { $0.hasSuffix(CacheEntryFile.suffix) }.count == 1)
        let everything = try files.map { try Data(contentsOf: directory.appendingPathComponent($0)) }.reduce(Data(), +)
        let text = String(decoding: everything, as: UTF8.self)
        let secrets = ["hunter2", "alice", Data("alice:hunter2".utf8).base64EncodedString(), "key-secret", "sekrit-cookie", "bearer-secret"]
        for secret in secrets {
            #expect(!text.contains(secret), "\(secret) is at rest in the cache directory")
        }
        var urls: Set<String> = []
        for name in files where name.hasSuffix(CacheEntryFile.suffix) {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            if let url = CacheEntryFile.metadata(prefix: data, fileSize: data.count)?.url { urls.insert(url) }
        }
        #expect(urls == ["http://127.0.0.1:\(server.httpPort)\(page.path)"], "the bearer token's response; the password's is not on disk")
    }
}
