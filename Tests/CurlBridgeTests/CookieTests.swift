@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The transport's cookie jar on curl's cookie engine, against the loopback server, in every style.
@Suite(.hangGuard) struct CookieTests {
    /// A request to which the server answers with one `Set-Cookie` header per value.
    static func setting(_ cookies: String..., at url: String = "response-headers") -> Request {
        cookies.reduce(Request.get(url)) { $0.query("Set-Cookie", $1) }
    }

    /// The cookies the server received with an `/echo` request, as `name=value` strings in order.
    static func receivedCookies(_ style: ClientStyle, _ request: Request = .get("echo"), through transport: Transport) async throws -> [String] {
        let echo = try await style.send(request, through: transport).get().echo()
        return echo.header("Cookie").flatMap { $0.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test(arguments: ClientStyle.allCases)
    func cookieSetByTheServerIsSentWithTheNextRequest(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        #expect(try await style.send(Self.setting("flavour=oat; Path=/", "size=large; HttpOnly"), through: transport).get().status == .ok)
        #expect(try await Self.receivedCookies(style, through: transport).sorted() == ["flavour=oat", "size=large"])
        let jar = try #require(transport.cookies)
        let stored = try jar.cookies().sorted { $0.name < $1.name }
        #expect(stored == [
            Cookie(name: "flavour", value: "oat", domain: "127.0.0.1"),
            Cookie(name: "size", value: "large", domain: "127.0.0.1", isHTTPOnly: true),
        ])
    }

    @Test(arguments: ClientStyle.allCases)
    func clientsOfOneTransportShareItsJarAndOtherTransportsDoNot(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server), other = Fixture.transport(server)
        _ = try await ClientStyle.callback.send(Self.setting("shared=yes"), through: transport).get()
        #expect(try await Self.receivedCookies(style, through: transport) == ["shared=yes"])
        #expect(try await Self.receivedCookies(style, through: other) == [])
    }

    @Test(arguments: ClientStyle.allCases)
    func requestWithCookiesOffNeitherSendsNorStores(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        _ = try await style.send(Self.setting("kept=1"), through: transport).get()
        _ = try await style.send(Self.setting("ignored=1").cookies(false), through: transport).get()
        #expect(try await Self.receivedCookies(style, Request.get("echo").cookies(false), through: transport) == [])
        #expect(try await Self.receivedCookies(style, through: transport) == ["kept=1"])
        #expect(try #require(transport.cookies).cookies().map(\.name) == ["kept"])
    }

    @Test(arguments: ClientStyle.allCases)
    func disabledStorageKeepsNoCookie(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.cookies = .disabled }
        #expect(transport.cookies == nil)
        _ = try await style.send(Self.setting("forgotten=1"), through: transport).get()
        #expect(try await Self.receivedCookies(style, through: transport) == [])
        #expect(try await Self.receivedCookies(style, Request.get("echo").header("Cookie", "mine=1"), through: transport) == ["mine=1"])
    }

    @Test(arguments: ClientStyle.allCases)
    func cookiesAddedAndDeletedThroughTheJarChangeWhatIsSent(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let jar = try #require(transport.cookies)
        _ = try await style.send(Self.setting("fromServer=1"), through: transport).get()
        try jar.add(Cookie(name: "fromAPI", value: "2", domain: "127.0.0.1"))
        #expect(try await Self.receivedCookies(style, through: transport).sorted() == ["fromAPI=2", "fromServer=1"])
        // Replacing a cookie the server set, then deleting one: curl has no call for either.
        try jar.add(Cookie(name: "fromServer", value: "changed", domain: "127.0.0.1"))
        #expect(try jar.delete(name: "fromAPI", domain: "127.0.0.1") == 1)
        #expect(try await Self.receivedCookies(style, through: transport) == ["fromServer=changed"])
        try jar.deleteAll()
        #expect(try await Self.receivedCookies(style, through: transport) == [])
        #expect(try jar.cookies().isEmpty)
    }

    @Test(arguments: ClientStyle.allCases)
    func hostOnlyCookieOf127IsNotSentToLocalhost(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        let localhost = "http://localhost:\(server.httpPort)/"
        _ = try await style.send(Self.setting("numeric=1"), through: transport).get()
        _ = try await style.send(Self.setting("named=2; Domain=localhost", at: localhost + "response-headers"), through: transport).get()
        #expect(try await Self.receivedCookies(style, through: transport) == ["numeric=1"])
        #expect(try await Self.receivedCookies(style, .get(localhost + "echo"), through: transport) == ["named=2"])
        let jar = try #require(transport.cookies)
        #expect(try jar.cookies(for: localhost + "echo").map(\.name) == ["named"])
    }

    @Test(arguments: ClientStyle.allCases)
    func ownCookieHeaderIsSentAfterTheJarsCookies(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        _ = try await style.send(Self.setting("jar=1"), through: transport).get()
        let echo = try await style.send(Request.get("echo").header("Cookie", "mine=1"), through: transport).get().echo()
        #expect(echo.header("Cookie") == ["jar=1", "mine=1"])
    }

    /// Through a proxy that sends every request to the loopback server, any host name works, so
    /// curl's public-suffix check (libpsl) can be seen: `co.uk` and `com` are refused.
    @Test(arguments: ClientStyle.allCases)
    func cookiesForPublicSuffixesAreRefused(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start(upstream: ("127.0.0.1", server.httpPort))
        let transport = Fixture.transport(server) { $0.proxy = .through(.http(host: "127.0.0.1", port: proxy.httpPort)) }
        let setUK = Self.setting("suffix=1; Domain=co.uk", "site=1; Domain=example.co.uk", at: "http://www.example.co.uk/response-headers")
        _ = try await style.send(setUK, through: transport).get()
        let setCom = Self.setting("tld=1; Domain=com", "shop=1; Domain=shop.example.com", at: "http://shop.example.com/response-headers")
        _ = try await style.send(setCom, through: transport).get()
        let stored = try #require(transport.cookies).cookies().sorted { $0.name < $1.name }
        #expect(stored.map(\.name) == ["shop", "site"])
        #expect(stored.map(\.domain) == ["shop.example.com", "example.co.uk"])
        #expect(try await Self.receivedCookies(style, .get("http://other.example.co.uk/echo"), through: transport) == ["site=1"])
        #expect(try await Self.receivedCookies(style, .get("http://another.co.uk/echo"), through: transport) == [])
        try await proxy.shutdown()
    }

    @Test func jarSaysWhatARequestWouldSend() async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        let jar = try #require(transport.cookies)
        try jar.add([
            Cookie(name: "root", value: "1", domain: "127.0.0.1"),
            Cookie(name: "deep", value: "2", domain: "127.0.0.1", path: "/echo/deep"),
            Cookie(name: "elsewhere", value: "3", domain: "127.0.0.1", path: "/other"),
            Cookie(name: "secure", value: "4", domain: "127.0.0.1", isSecure: true),
            Cookie(name: "gone", value: "5", domain: "127.0.0.1", expires: Date(timeIntervalSince1970: 1000)),
        ])
        for path in ["echo", "echo/deep/er", "echo/deeper"] {
            let url = server.httpURL.absoluteString + path
            let predicted = try jar.cookies(for: url).map { "\($0.name)=\($0.value)" }
            let sent = try await Self.receivedCookies(.async, .get(url), through: transport)
            #expect(sent == predicted, "\(path)")
        }
        #expect(try jar.cookies(for: server.httpURL.absoluteString + "echo/deep/er").map(\.name).first == "deep")
        #expect(throws: RequestError.self) { try jar.cookies(for: "echo") }
    }

    @Test func invalidCookiesAreRefusedAndLeaveTheJarAsItWas() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let jar = try #require(transport.cookies)
        try jar.add(Cookie(name: "keep", value: "1", domain: "127.0.0.1"))
        let injected = #expect(throws: RequestError.self) {
            try jar.add(Cookie(name: "a", value: "1\r\nX-Injected: yes", domain: "127.0.0.1"))
        }
        #expect(injected?.code == .invalidCookie)
        // curl's own rule: a __Host- cookie must be secure, host-only and on "/".
        let refused = #expect(throws: RequestError.self) {
            try jar.add([Cookie(name: "keep", value: "2", domain: "127.0.0.1"),
                         Cookie(name: "__Host-id", value: "1", domain: "example.com", includesSubdomains: true, isSecure: true)])
        }
        #expect(refused?.code == .invalidCookie)
        #expect(try jar.cookies() == [Cookie(name: "keep", value: "1", domain: "127.0.0.1")])
    }

    /// The jar is usable from the transport's own queue (here: a transfer's completion), where a
    /// call that waited for the loop would deadlock.
    @Test func jarIsUsableFromTheTransportsQueue() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let jar = try #require(transport.cookies)
        let names = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            transport.start(Self.setting("queued=1"), events: TransferEvents { _ in
                #expect((GuardedQueue.current == .transportLoop))
                try? jar.add(Cookie(name: "added", value: "1", domain: "127.0.0.1"))
                continuation.resume(returning: ((try? jar.cookies()) ?? []).map(\.name).sorted())
            })
        }
        #expect(names == ["added", "queued"])
    }
}

extension CookieTests {
    @Test(arguments: ClientStyle.allCases)
    func cookiesTravelOverHTTP2(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let set = try await style.send(Self.setting("h2=1; Secure", "other=2"), through: transport).get()
        #expect(set.httpVersion == .http2)
        let echo = try await style.send(.get("echo"), through: transport).get().echo()
        #expect(echo.httpVersion == "2")
        let sent = echo.header("Cookie").flatMap { $0.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(sent.sorted() == ["h2=1", "other=2"])
        #expect(try #require(transport.cookies).cookies().first { $0.name == "h2" }?.isSecure == true)
    }
}

extension CookieTests {
    /// Jar changes (each a rewrite of curl's jar) racing responses that set cookies lose none of
    /// either: the jar's lock covers the whole read-modify-write.
    @Test func jarChangesRacingTransfersLoseNoCookie() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let jar = try #require(transport.cookies)
        let requests = (0..<40).map { Self.setting("server\($0)=\($0)") }
        let writer = Task.detached {
            for index in 0..<40 {
                try jar.add(Cookie(name: "api\(index)", value: "\(index)", domain: "127.0.0.1"))
                try jar.add(Cookie(name: "temporary", value: "\(index)", domain: "127.0.0.1"))
                try jar.delete(name: "temporary", domain: "127.0.0.1")
            }
        }
        let outcomes = await transport.startTogether(requests)
        try await writer.value
        #expect(outcomes.allSatisfy { (try? $0.get().status) == .ok })
        let names = Set(try jar.cookies().map(\.name))
        #expect(names == Set((0..<40).flatMap { ["server\($0)", "api\($0)"] }))
    }
}

extension CookieTests {
    /// Each hop of a redirect is its own transfer on the jar: a cookie set by a redirect response
    /// is sent to its target, and each origin gets only its own cookies.
    @Test(arguments: ClientStyle.allCases)
    func redirectHopsSendEachOriginItsOwnCookies(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        let numeric = server.httpURL.absoluteString, named = "http://localhost:\(server.httpPort)/"
        let sameOrigin = Request.get("redirect-to").query("url", "/echo").query("set-cookie", "login=ok")
        #expect(try await Self.receivedCookies(style, sameOrigin, through: transport) == ["login=ok"])
        let toNamed = Request.get(numeric + "redirect-to").query("url", named + "echo").query("set-cookie", "fromNumeric=1")
        #expect(try await Self.receivedCookies(style, toNamed, through: transport) == [])
        let backToNumeric = Request.get(named + "redirect-to").query("url", numeric + "echo").query("set-cookie", "fromNamed=2")
        #expect(try await Self.receivedCookies(style, backToNumeric, through: transport).sorted() == ["fromNumeric=1", "login=ok"])
        #expect(try await Self.receivedCookies(style, .get(named + "echo"), through: transport) == ["fromNamed=2"])
    }
}
