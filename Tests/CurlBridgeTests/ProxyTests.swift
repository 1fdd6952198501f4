import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Requests through a real proxy started by the test (HTTP, HTTPS and SOCKS5 listeners that
/// record what they relay), in every style.
@Suite(.hangGuard) struct ProxyTests {
    static let user = "proxy-user", password = "proxy-secret-7f3a"
    static var credentials: ProxyServer.Credentials { .init(user: user, password: password) }
    /// What HTTP Basic makes of the credentials.
    static var basic: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }

    /// A transport through `server`, trusting the test CA for origins (and for an HTTPS proxy).
    static func transport(_ testServer: TestServer, via server: ProxyServer, bypassing: [String] = []) -> Transport {
        Fixture.transport(testServer) { $0.proxy = .through(server, bypassing: bypassing) }
    }

    /// Checks that nothing of the proxy credentials reached the origin.
    static func expectNoProxySecrets(in echo: EchoReply, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(echo.header("Proxy-Authorization").isEmpty, sourceLocation: sourceLocation)
        let everything = echo.headers.flatMap { $0 }.joined(separator: "\n")
        #expect(!everything.contains(password), sourceLocation: sourceLocation)
        #expect(!everything.contains(String(basic.dropFirst(6))), sourceLocation: sourceLocation)
    }

    @Test(arguments: ClientStyle.allCases)
    func httpRequestIsForwardedByTheHTTPProxy(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start(credentials: (Self.user, Self.password))
        let transport = Self.transport(server, via: .http(host: "127.0.0.1", port: proxy.httpPort, credentials: Self.credentials))
        let echo = try await style.send(.get("echo/forwarded"), through: transport).get().echo()
        #expect(echo.path == "/echo/forwarded")
        let record = try #require(proxy.records.first)
        #expect(proxy.records.count == 1)
        #expect(record.kind == .forward)
        #expect(record.target == server.httpURL.absoluteString + "echo/forwarded")
        #expect(record.header("Proxy-Authorization") == [Self.basic])
        #expect(record.user == Self.user && record.accepted)
        #expect(record.bytesFromTarget > 0)
        Self.expectNoProxySecrets(in: echo)
        try await proxy.shutdown()
    }

    @Test(arguments: ClientStyle.allCases)
    func httpsRequestTunnelsThroughTheHTTPProxy(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start(credentials: (Self.user, Self.password))
        let transport = Fixture.transport(server, tls: true) {
            $0.proxy = .through(.http(host: "127.0.0.1", port: proxy.httpPort, credentials: Self.credentials))
        }
        let echo = try await style.send(.get("echo/tunnelled"), through: transport).get().echo()
        #expect(echo.path == "/echo/tunnelled")
        let record = try #require(proxy.records.first)
        #expect(record.kind == .connect)
        #expect(record.target == "127.0.0.1:\(server.httpsPort)")
        #expect(record.header("Proxy-Authorization") == [Self.basic])
        #expect(record.bytesToTarget > 0 && record.bytesFromTarget > 0)
        Self.expectNoProxySecrets(in: echo)
        try await proxy.shutdown()
    }

    @Test(arguments: ClientStyle.allCases)
    func httpsProxyIsReachedOverTLSForBothSchemes(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start(credentials: (Self.user, Self.password))
        let proxyServer = ProxyServer.https(
            host: "localhost", port: proxy.httpsPort, credentials: Self.credentials, trusting: Fixture.testCA)
        let transport = Self.transport(server, via: proxyServer)
        let plain = try await style.send(.get(server.httpURL.absoluteString + "echo/plain"), through: transport).get().echo()
        let secure = try await style.send(.get(server.httpsURL.absoluteString + "echo/secure"), through: transport).get().echo()
        #expect(plain.path == "/echo/plain" && secure.path == "/echo/secure")
        #expect(proxy.records.map(\.kind) == [.forward, .connect])
        #expect(proxy.records.allSatisfy { $0.overTLS && $0.accepted && $0.header("Proxy-Authorization") == [Self.basic] })
        Self.expectNoProxySecrets(in: secure)
        try await proxy.shutdown()
    }

    @Test(arguments: ClientStyle.allCases)
    func httpsProxyWithAnUntrustedCertificateIsRefused(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start()
        let transport = Self.transport(server, via: .https(host: "127.0.0.1", port: proxy.httpsPort))
        let error = try #require(await style.send(.get("echo"), through: transport).failure)
        #expect(error.code == .tlsFailure)
        #expect(proxy.records.isEmpty)
        try await proxy.shutdown()
    }

    @Test(arguments: ClientStyle.allCases)
    func socks5CarriesBothSchemesWithCredentials(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start(credentials: (Self.user, Self.password))
        let transport = Self.transport(server, via: .socks5(host: "127.0.0.1", port: proxy.socksPort, credentials: Self.credentials))
        let plain = try await style.send(.get(server.httpURL.absoluteString + "echo"), through: transport).get().echo()
        let secure = try await style.send(.get(server.httpsURL.absoluteString + "echo"), through: transport).get().echo()
        let targets = proxy.records.map(\.target)
        #expect(targets == ["127.0.0.1:\(server.httpPort)", "127.0.0.1:\(server.httpsPort)"])
        #expect(proxy.records.allSatisfy { $0.kind == .socks5 && $0.socksAddressType == "ipv4" && $0.user == Self.user })
        Self.expectNoProxySecrets(in: plain)
        Self.expectNoProxySecrets(in: secure)
        try await proxy.shutdown()
    }

    /// `origin.invalid` cannot be resolved here: only a proxy that resolves names itself reaches
    /// it (this one sends every target to the loopback server).
    @Test(arguments: ClientStyle.allCases)
    func socks5hLetsTheProxyResolveTheHostName(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start(upstream: ("127.0.0.1", server.httpPort))
        let transport = Self.transport(server, via: .socks5h(host: "127.0.0.1", port: proxy.socksPort))
        let echo = try await style.send(.get("http://origin.invalid:8080/echo"), through: transport).get().echo()
        #expect(echo.header("Host") == ["origin.invalid:8080"])
        #expect(proxy.records.map(\.target) == ["origin.invalid:8080"])
        #expect(proxy.records.first?.socksAddressType == "domain")
        try await proxy.shutdown()
    }

    @Test(arguments: ClientStyle.allCases)
    func wrongProxyCredentialsAreRefusedByEachKindOfProxy(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start(credentials: (Self.user, Self.password))
        let wrong = ProxyServer.Credentials(user: Self.user, password: "wrong")
        // Forwarded http://: the proxy's 407 is the response.
        let forwarding = Self.transport(server, via: .http(host: "127.0.0.1", port: proxy.httpPort, credentials: wrong))
        #expect(try await style.send(.get("echo"), through: forwarding).get().status.code == 407)
        // A tunnel for https:// is never opened.
        let tunnelling = Self.transport(server, via: .http(host: "127.0.0.1", port: proxy.httpPort, credentials: wrong))
        let tunnelError = try #require(await style.send(.get(server.httpsURL.absoluteString + "echo"), through: tunnelling).failure)
        #expect(tunnelError.code == .proxyFailure)
        let socks = Self.transport(server, via: .socks5(host: "127.0.0.1", port: proxy.socksPort, credentials: wrong))
        let socksError = try #require(await style.send(.get("echo"), through: socks).failure)
        #expect(socksError.code == .proxyFailure)
        #expect(proxy.records.map(\.accepted) == [false, false, false])
        try await proxy.shutdown()
    }

    @Test(arguments: ClientStyle.allCases)
    func bypassedHostsAreReachedDirectly(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start()
        let transport = Self.transport(server, via: .http(host: "127.0.0.1", port: proxy.httpPort), bypassing: ["localhost"])
        _ = try await style.send(.get("http://localhost:\(server.httpPort)/echo"), through: transport).get()
        #expect(proxy.records.isEmpty)
        _ = try await style.send(.get("echo"), through: transport).get()
        #expect(proxy.records.count == 1)
        try await proxy.shutdown()
    }

    @Test(arguments: ClientStyle.allCases)
    func proxySetOnlyForHTTPLeavesHTTPSDirect(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start()
        let transport = Fixture.transport(server) {
            $0.proxy = ProxyConfiguration(httpProxy: .http(host: "127.0.0.1", port: proxy.httpPort))
        }
        _ = try await style.send(.get(server.httpsURL.absoluteString + "echo"), through: transport).get()
        #expect(proxy.records.isEmpty)
        _ = try await style.send(.get(server.httpURL.absoluteString + "echo"), through: transport).get()
        #expect(proxy.records.map(\.kind) == [.forward])
        try await proxy.shutdown()
    }

    /// A `Proxy-Authorization` header set on a request goes to the proxy only: in the `CONNECT`
    /// of a tunnel, or with a request the proxy forwards — and nowhere without a proxy.
    @Test(arguments: ClientStyle.allCases)
    func proxyAuthorizationHeaderOfARequestGoesOnlyToTheProxy(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start()
        let request = Request.get(server.httpsURL.absoluteString + "echo").header("Proxy-Authorization", "Bearer canary-1")

        let direct = Fixture.transport(server)
        let directEcho = try await style.send(request, through: direct).get().echo()
        #expect(directEcho.header("Proxy-Authorization").isEmpty)

        let proxied = Self.transport(server, via: .http(host: "127.0.0.1", port: proxy.httpPort))
        let tunnelledEcho = try await style.send(request, through: proxied).get().echo()
        #expect(tunnelledEcho.header("Proxy-Authorization").isEmpty)
        #expect(proxy.records.last?.kind == .connect)
        #expect(proxy.records.last?.header("Proxy-Authorization") == ["Bearer canary-1"])

        _ = try await style.send(Request.get("echo").header("Proxy-Authorization", "Bearer canary-2"), through: proxied).get()
        #expect(proxy.records.last?.kind == .forward)
        #expect(proxy.records.last?.header("Proxy-Authorization") == ["Bearer canary-2"])
        try await proxy.shutdown()
    }
}

extension ProxyTests {
    @Test func curlDescriptionSendsProxyAuthorizationToTheProxyOnly() {
        let command = Request.get("https://example.com/").header("Proxy-Authorization", "Basic abc").header("X-Other", "1")
            .curlDescription(revealingSecrets: true)
        #expect(command.contains("--proxy-header 'Proxy-Authorization: Basic abc'"))
        #expect(command.contains("-H 'X-Other: 1'"))
    }
}
