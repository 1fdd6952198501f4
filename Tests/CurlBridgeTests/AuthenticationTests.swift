@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Basic, Bearer, Digest and NTLM credentials against the server's authentication routes, in
/// every style; credentials never over plain http unless allowed; per-origin credentials.
@Suite(.hangGuard) struct AuthenticationTests {
    static let payload = TestServer.patternBody(0..<200_000, version: 13)

    @Test(arguments: ClientStyle.allCases)
    func basicCredentialsAreSentAsUTF8Base64(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let request = Request.get("basic-auth/j%C3%B6rg/p%C3%A4ss%3Aword").basicAuth(username: "jörg", password: "päss:word")
        let response = try await style.send(request, through: transport).get()
        #expect(response.status == .ok)
        #expect(try response.echo().header("authorization") == ["Basic " + Data("jörg:päss:word".utf8).base64EncodedString()])
        let wrong = try await style.send(.get("basic-auth/j%C3%B6rg/other").basicAuth(username: "jörg", password: "päss:word"), through: transport).get()
        #expect(wrong.status == .unauthorized)
    }

    @Test(arguments: ClientStyle.allCases)
    func bearerTokenIsSent(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let response = try await style.send(.get("bearer-auth/t0k.en").bearerToken("t0k.en"), through: transport).get()
        #expect(response.status == .ok)
        #expect(try await style.send(.get("bearer-auth/t0k.en").bearerToken("other"), through: transport).get().status == .unauthorized)
    }

    @Test(arguments: ClientStyle.allCases, ["MD5", "SHA-256"])
    func digestIsAnsweredAndTheBodySentAgainWhole(style: ClientStyle, algorithm: String) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let credential = Credential.digest(username: "ada", password: "s3cret")
        let get = try await style.send(.get("digest-auth/ada/s3cret?algorithm=\(algorithm)").credential(credential), through: transport).get()
        #expect(get.status == .ok)
        #expect(try get.echo().header("authorization").first?.hasPrefix("Digest ") == true)

        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("body.bin")
        try Self.payload.write(to: file)
        let post = Request.post("digest-auth/ada/s3cret?algorithm=\(algorithm)").credential(credential)
        for request in [post.body(Self.payload), post.body(fileAt: file)] {
            let response = try await style.send(request, through: transport).get()
            #expect(response.status == .ok)
            let echo = try response.echo()  // the 401's "unauthorized" body is not in front of it
            #expect(echo.bodyData == Self.payload)
        }
    }

    @Test(arguments: ClientStyle.allCases)
    func wrongDigestPasswordEndsWithTheServers401(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let request = Request.get("digest-auth/ada/s3cret").credential(.digest(username: "ada", password: "wrong"))
        let response = try await style.send(request, through: transport).get()
        #expect(response.status == .unauthorized)
        #expect(String(decoding: response.body, as: UTF8.self) == "unauthorized\n")
        let streamed = await style.stream(request, through: transport)
        #expect(streamed.head?.status == .unauthorized)
        #expect(String(decoding: streamed.body, as: UTF8.self) == "unauthorized\n")
        #expect(streamed.error == nil && streamed.orderViolations == 0)
    }

    @Test(arguments: ClientStyle.allCases)
    func digestStreamDeliversOnlyTheFinalHeadAndBody(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let request = Request.get("digest-auth/ada/s3cret").credential(.digest(username: "ada", password: "s3cret"))
        let streamed = await style.stream(request, through: transport)
        #expect(streamed.error == nil && streamed.orderViolations == 0)
        #expect(streamed.head?.status == .ok)
        #expect(streamed.head?.headerFields[.wwwAuthenticate] == nil)
        let echo = try JSONDecoder().decode(EchoReply.self, from: streamed.body)
        #expect(echo.path == "/digest-auth/ada/s3cret")
    }

    @Test(arguments: ClientStyle.allCases)
    func digestDownloadWritesOnlyTheFinalBody(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("download.json")
        let request = Request.get("digest-auth/ada/s3cret").credential(.digest(username: "ada", password: "s3cret"))
        let download = try await style.download(request, to: destination, through: transport).get()
        #expect(download.status == .ok)
        let echo = try JSONDecoder().decode(EchoReply.self, from: Data(contentsOf: destination))
        #expect(echo.path == "/digest-auth/ada/s3cret")
    }

    @Test(arguments: ClientStyle.allCases)
    func digestSendsAOneShotStreamOnceAfterABodilessProbe(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let next = SendableIterator(Self.payload.chunked(into: 50_000))
        let request = Request.post("digest-auth/ada/s3cret").credential(.digest(username: "ada", password: "s3cret"))
            .body(pulling: { next.next() })
        let response = try await style.send(request, through: transport).get()
        #expect(response.status == .ok)
        #expect(try response.echo().bodyData == Self.payload)
    }

    @Test(arguments: ClientStyle.allCases)
    func staleDigestNonceRewindsABodyButNotAOneShotStream(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let request = Request.post("digest-auth/ada/s3cret?stale-once=1").credential(.digest(username: "ada", password: "s3cret"))
        let bytes = try await style.send(request.body(Self.payload), through: transport).get()
        #expect(bytes.status == .ok)
        #expect(try bytes.echo().bodyData == Self.payload)

        let next = SendableIterator(Self.payload.chunked(into: 50_000))
        let error = await style.send(request.body(pulling: { next.next() }), through: transport).failure
        #expect(error?.code == .bodyNotRewindable, "\(String(describing: error))")
    }

    @Test(arguments: ClientStyle.allCases)
    func ntlmHandshakeRunsOnOneConnection(style: ClientStyle) async throws {
        try #require(CurlGlobal.supportsNTLM, "libcurl without NTLM")
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let request = Request.post("ntlm-auth/alice").credential(.ntlm(username: "alice", password: "pw")).body(Self.payload)
        let response = try await style.send(request, through: transport).get()
        #expect(response.status == .ok)
        #expect(response.headerFields[HTTPField.Name("X-NTLM-Type1-Seen")!] == "yes")
        #expect(try response.echo().bodyData == Self.payload)
    }

    @Test(arguments: ClientStyle.allCases)
    func anySafeNeverSendsBasic(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true)
        let credential = Credential.challenged(username: "ada", password: "s3cret", schemes: .anySafe)
        #expect(try await style.send(.get("digest-auth/ada/s3cret").credential(credential), through: transport).get().status == .ok)
        let basic = try await style.send(.get("basic-auth/ada/s3cret").credential(credential), through: transport).get()
        #expect(basic.status == .unauthorized)
        let any = Credential.challenged(username: "ada", password: "s3cret", schemes: .any)
        #expect(try await style.send(.get("basic-auth/ada/s3cret").credential(any), through: transport).get().status == .ok)
    }

    // MARK: Plain http

    static let credentialCarriers: [(String, @Sendable (String) -> Request)] = [
        ("basic", { Request.get($0).basicAuth(username: "u", password: "p") }),
        ("bearer", { Request.get($0).bearerToken("t") }),
        ("digest", { Request.get($0).credential(.digest(username: "u", password: "p")) }),
        ("authorization header", { Request.get($0).header("Authorization", "Token x") }),
        ("user info", { Request.get($0.replacingOccurrences(of: "http://", with: "http://u:p@")) }),
    ]

    @Test(arguments: ClientStyle.allCases, credentialCarriers.map(\.0))
    func credentialsOverPlainHTTPToAnotherHostAreRefusedBeforeAnythingIsSent(style: ClientStyle, carrier: String) async throws {
        let build = try #require(Self.credentialCarriers.first { $0.0 == carrier }?.1)
        // A name that cannot resolve: refused before the lookup (not hostNotFound after it).
        let error = await style.send(build("http://credentials.invalid/x"), through: Transport()).failure
        #expect(error?.code == .credentialsOverPlainHTTP)
        #expect(error?.message.contains("allowingCredentialsOverPlainHTTP") == true, "\(String(describing: error))")
    }

    /// User info that only the general URL parser reads — an IPv6 literal host, a base URL the
    /// request's path resolves against — is refused like user info in a plain URL.
    @Test(arguments: ClientStyle.allCases)
    func userInfoReadByTheGeneralParserIsRefusedToo(style: ClientStyle) async throws {
        let literal = await style.send(.get("http://u:p@[2001:db8::1]/x"), through: Transport()).failure
        #expect(literal?.code == .credentialsOverPlainHTTP, "\(String(describing: literal))")
        let based = Transport(configuration: Configuration(baseURL: URL(string: "http://u:p@credentials.invalid/v1/")))
        let relative = await style.send(.get("x"), through: based).failure
        #expect(relative?.code == .credentialsOverPlainHTTP, "\(String(describing: relative))")
    }

    @Test(arguments: ClientStyle.allCases, credentialCarriers.map(\.0))
    func loopbackThroughAProxyIsNotExempt(style: ClientStyle, carrier: String) async throws {
        let build = try #require(Self.credentialCarriers.first { $0.0 == carrier }?.1)
        let proxy = try SilentListener()
        let transport = Transport(configuration: Configuration(proxy: .through(.http(host: "127.0.0.1", port: proxy.port))))
        let error = await style.send(build("http://127.0.0.1:9/x"), through: transport).failure
        #expect(error?.code == .credentialsOverPlainHTTP)
        #expect(proxy.connectionAttempts() == 0)
    }

    /// libcurl 7.88 resolves `localhost.` through DNS (whoever answers for it would read the
    /// credentials), so only exactly `localhost` and literal loopback addresses are exempt.
    @Test(arguments: ClientStyle.allCases, credentialCarriers.map(\.0))
    func aLoopbackNameWithATrailingDotIsNotExempt(style: ClientStyle, carrier: String) async throws {
        let build = try #require(Self.credentialCarriers.first { $0.0 == carrier }?.1)
        let listener = try SilentListener()
        for host in ["localhost.", "LocalHost."] {
            let error = await style.send(build("http://\(host):\(listener.port)/x"), through: Transport()).failure
            #expect(error?.code == .credentialsOverPlainHTTP, "\(host): \(String(describing: error))")
        }
        #expect(listener.connectionAttempts() == 0, "nothing reached the port")
    }

    @Test(arguments: ClientStyle.allCases)
    func defaultAuthorizationHeaderOverPlainHTTPIsRefused(style: ClientStyle) async throws {
        let transport = Transport(configuration: Configuration(defaultHeaders: [.authorization: "Token x"]))
        #expect(await style.send(.get("http://credentials.invalid/"), through: transport).failure?.code == .credentialsOverPlainHTTP)
    }

    @Test(arguments: ClientStyle.allCases)
    func theLoopbackGetsCredentialsOverPlainHTTPByDefault(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Transport()
        for host in ["127.0.0.1", "localhost"] {
            let origin = "http://\(host):\(server.httpPort)/"
            let basic = try await style.send(.get(origin + "basic-auth/u/p").basicAuth(username: "u", password: "p"), through: transport).get()
            #expect(basic.status == .ok, "\(host)")
            let bearer = try await style.send(.get(origin + "bearer-auth/t0k").bearerToken("t0k"), through: transport).get()
            #expect(bearer.status == .ok, "\(host)")
            let userInfo = try await style.send(.get("http://u:p@\(host):\(server.httpPort)/basic-auth/u/p"), through: transport).get()
            #expect(userInfo.status == .ok, "\(host)")
        }
    }

    /// A Unix socket: the URL names a host that is not the loopback, and the server answers.
    @Test(arguments: ClientStyle.allCases)
    func oneRequestOrTheConfigurationCanAllowCredentialsOverPlainHTTP(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let request = Request.get("http://api.test/bearer-auth/t0k").bearerToken("t0k")
        let strict = Transport(configuration: Configuration(unixSocketPath: server.unixSocketPath))
        #expect(await style.send(request, through: strict).failure?.code == .credentialsOverPlainHTTP)
        #expect(!request.allowsCredentialsOverPlainHTTP)
        let allowed = request.allowingCredentialsOverPlainHTTP()
        #expect(try await style.send(allowed, through: strict).get().status == .ok)
        #expect(await style.send(allowed.allowingCredentialsOverPlainHTTP(false), through: strict).failure?.code == .credentialsOverPlainHTTP)

        let lenient = Transport(configuration: Configuration(allowsCredentialsOverPlainHTTP: true, unixSocketPath: server.unixSocketPath))
        #expect(try await style.send(request, through: lenient).get().status == .ok)
        let digest = Request.get("http://api.test/digest-auth/u/p").credential(.digest(username: "u", password: "p"))
        #expect(try await style.send(digest, through: lenient).get().status == .ok)
    }

    // MARK: Per-origin credentials

    @Test(arguments: ClientStyle.allCases)
    func originCredentialsGoOnlyToTheirOrigin(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let origin = try #require(Credential.Origin(server.httpsURL.absoluteString))
        let transport = Fixture.transport(server, tls: true) { $0.credentials = [origin: .bearer("t0k")] }
        let own = try await style.send(.get("bearer-auth/t0k"), through: transport).get()
        #expect(own.status == .ok)
        // Same server, other host name: another origin.
        let other = try await style.send(.get("https://localhost:\(server.httpsPort)/echo"), through: transport).get().echo()
        #expect(other.header("authorization").isEmpty)
        // A request's own credential or Authorization header wins.
        let overridden = try await style.send(.get("echo").bearerToken("mine"), through: transport).get().echo()
        #expect(overridden.header("authorization") == ["Bearer mine"])
        let header = try await style.send(.get("echo").header("Authorization", "Token x"), through: transport).get().echo()
        #expect(header.header("authorization") == ["Token x"])
    }

    // MARK: Without sockets

    @Test func credentialReplacesAnyAuthorizationHeader() throws {
        let request = Request.get("https://example.com/").header("Authorization", "Token old").bearerToken("new")
        let prepared = try request.prepared(with: RequestDefaults(Configuration())).get()
        #expect(prepared.headerLines.filter(Request.isAuthorizationLine) == ["Authorization: Bearer new"])
    }

    @Test func unsendableCredentialsAreRefusedAsInvalidHeaders() {
        let defaults = RequestDefaults(Configuration())
        for request in [
            Request.get("https://example.com/").basicAuth(username: "a:b", password: "p"),
            Request.get("https://example.com/").bearerToken("t\r\nX-Injected: 1"),
            Request.get("https://example.com/").credential(.digest(username: "u\n", password: "p")),
            Request.get("https://example.com/").credential(.challenged(username: "u", password: "p", schemes: [])),
        ] {
            #expect(request.prepared(with: defaults).failure?.code == .invalidHeader)
        }
    }

    @Test func secretsStayOutOfDescriptionsAndDumps() {
        let request = Request.get("https://example.com/").credential(.digest(username: "ada", password: "pa55"))
        var dumped = ""
        dump(request, to: &dumped)
        #expect(!dumped.contains("pa55") && dumped.contains("ada"))
        let printed = String(describing: request)
        #expect(printed.contains("url: \"https://example.com/\"") && printed.contains("ada") && !printed.contains("pa55"), "\(printed)")
        #expect(!String(describing: Credential.bearer("t0k")).contains("t0k"))
        let description = request.curlDescription()
        #expect(description.contains("--digest --user 'ada:<redacted>'"))
        #expect(request.curlDescription(revealingSecrets: true).contains("--user 'ada:pa55'"))
        let basic = Request.get("https://example.com/").basicAuth(username: "ada", password: "pa55").curlDescription()
        #expect(basic.contains("-H 'Authorization: <redacted>'") && !basic.contains(Data("ada:pa55".utf8).base64EncodedString()))
    }

    @Test func originsCompareSchemeHostAndPort() {
        #expect(Credential.Origin("https://API.example.com/v1") == Credential.Origin(scheme: "https", host: "api.example.com", port: 443))
        #expect(Credential.Origin("http://example.com") != Credential.Origin("https://example.com"))
        #expect(Credential.Origin("https://example.com:8443") != Credential.Origin("https://example.com"))
        #expect(Credential.Origin("ftp://example.com") == nil)
    }

    @Test func theCurlCLIRunningADigestDescriptionIsAccepted() async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        let request = Request.get("digest-auth/ada/s3cret").credential(.digest(username: "ada", password: "s3cret"))
        var configuration = transport.configuration
        configuration.allowsCredentialsOverPlainHTTP = true
        let (status, output) = try await runCurlCommand(request.curlDescription(for: configuration, revealingSecrets: true))
        #expect(status == 0)
        #expect(try JSONDecoder().decode(EchoReply.self, from: output).path == "/digest-auth/ada/s3cret")
    }
}

/// Hands out the elements of an array one by one, from any thread.
final class SendableIterator: Sendable {
    private let remaining: Mutex<[Data]>
    init(_ elements: [Data]) { remaining = Mutex(elements) }
    func next() -> Data? { remaining.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
}

extension Data {
    /// The data in pieces of at most `size` bytes.
    func chunked(into size: Int) -> [Data] {
        stride(from: 0, to: count, by: size).map { subdata(in: $0..<Swift.min($0 + size, count)) }
    }
}
