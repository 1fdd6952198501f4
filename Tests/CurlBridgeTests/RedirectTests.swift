@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Redirects followed over loopback against two servers, in every client style: what each
/// origin received, header by header, and how the chain ends.
///
/// Origin A is the fixture server's TLS port on `127.0.0.1`; another origin is the second
/// server's TLS port (a port change) or A's port on `localhost` (a host change: curl and we
/// compare host names, not addresses).
@Suite("Redirects over loopback", .hangGuard)
struct RedirectTests {
    /// The secrets and custom headers every matrix request carries, by name.
    static let canaries: [(name: String, value: String)] = [
        ("Authorization", "Bearer canary-authorization"),
        ("Cookie", "canary=cookie"),
        ("Proxy-Authorization", "Basic canary-proxy"),
        ("X-Api-Key", "canary-key"),
        ("X-Trace", "canary-trace"),
        ("X-Forward-Me", "canary-forwardable"),
        ("Accept", "application/json"),
    ]

    /// What a hop to another origin may carry by default.
    static let crossOriginSurvivors: Set<String> = ["X-Forward-Me", "Accept"]

    enum Target: String, CaseIterable, CustomStringConvertible, Sendable {
        case sameOrigin, otherPort, otherHost
        var description: String { rawValue }
    }

    struct Origins: Sendable {
        let a: String
        let otherPort: String
        let otherHost: String
        let plainA: String

        func url(_ target: Target) -> String {
            switch target {
            case .sameOrigin: a
            case .otherPort: otherPort
            case .otherHost: otherHost
            }
        }
    }

    private func origins() async throws -> Origins {
        let server = try await Fixture.server()
        let other = try await Fixture.otherServer()
        return Origins(
            a: "https://127.0.0.1:\(server.httpsPort)", otherPort: "https://127.0.0.1:\(other.httpsPort)",
            otherHost: "https://localhost:\(server.httpsPort)", plainA: "http://127.0.0.1:\(server.httpPort)")
    }

    private func transport(_ adjust: (inout Configuration) -> Void = { _ in }) async throws -> Transport {
        Fixture.transport(try await Fixture.server(), tls: true, adjust)
    }

    /// A request to `/redirect-to` on `origin` that points at `target`, carrying every canary.
    private func canaryRequest(
        _ method: HTTPRequest.Method = .get, from origin: String, to target: String, status: Int = 302
    ) -> Request {
        var request = Request(method: method, url: origin + "/redirect-to").query("url", target).query("status", "\(status)")
        for (name, value) in Self.canaries {
            request = request.header(name, value, sensitive: name == "X-Api-Key", forwardable: name == "X-Forward-Me")
        }
        return request
    }

    /// Checks, header by header, that the echo received exactly the canaries in `survivors`.
    private func expectReceived(
        _ echo: EchoReply, survivors: Set<String>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (name, value) in Self.canaries where name != "Cookie" {
            let expected = survivors.contains(name) ? [value] : []
            #expect(echo.header(name) == expected, "\(name)", sourceLocation: sourceLocation)
        }
        // The cookie engine may add its own cookies to the user's `Cookie` header: look for the canary.
        let cookies = echo.header("Cookie").joined(separator: "; ")
        #expect(cookies.contains("canary=cookie") == survivors.contains("Cookie"), "Cookie: \(cookies)", sourceLocation: sourceLocation)
        #expect(echo.header("User-Agent").first?.hasPrefix("CurlBridge/") == true, sourceLocation: sourceLocation)
    }

    @Test("GET 302: same origin keeps everything; another port or host gets only safe headers", arguments: ClientStyle.allCases, Target.allCases)
    func crossOriginMatrix(style: ClientStyle, target: Target) async throws {
        let origins = try await origins()
        let final = origins.url(target) + "/echo/final"
        // Origin A also sets a cookie on its redirect: the cookie engine sends it wherever the
        // cookie rules say (cookies ignore ports: RFC 6265 §8.5), unlike the user's Cookie header.
        let request = canaryRequest(from: origins.a, to: final).query("set-cookie", "origin-a=jar-secret; Path=/; Secure")
        let response = try await style.send(request, through: transport()).get()
        #expect(response.status == .ok)
        #expect(response.url == final)
        let engineCookie = try response.echo().header("Cookie").contains { $0.contains("origin-a=jar-secret") }
        #expect(engineCookie == (target != .otherHost))
        #expect(response.redirects.map(\.status.code) == [302])
        #expect(response.redirects.first?.url.hasPrefix(origins.a + "/redirect-to?") == true)
        #expect(response.redirects.first?.location == final)
        #expect(response.metrics.redirectCount == 1)
        // Proxy-Authorization goes to a proxy only, never to an origin, redirected or not (ProxyTests).
        let everything = Set(Self.canaries.map(\.name)).subtracting(["Proxy-Authorization"])
        expectReceived(try response.echo(), survivors: target == .sameOrigin ? everything : Self.crossOriginSurvivors)
    }

    @Test("POST with a body: 301/302/303 become a GET without body, 307/308 keep both, to another origin too",
          arguments: ClientStyle.allCases, [301, 302, 303, 307, 308])
    func methodRules(style: ClientStyle, status: Int) async throws {
        let origins = try await origins()
        let request = canaryRequest(.post, from: origins.a, to: origins.otherPort + "/echo", status: status)
            .body("the body", contentType: "text/plain")
        let echo = try await style.send(request, through: transport()).get().echo()
        let keepsBody = status == 307 || status == 308
        #expect(echo.method == (keepsBody ? "POST" : "GET"))
        #expect(echo.bodyData == (keepsBody ? Data("the body".utf8) : Data()))
        #expect(echo.header("Content-Type") == (keepsBody ? ["text/plain"] : []))
        expectReceived(echo, survivors: Self.crossOriginSurvivors)
    }

    @Test("307 with a file body resends the file; with a one-shot stream it fails clearly", arguments: ClientStyle.allCases)
    func rewindableBodies(style: ClientStyle) async throws {
        let origins = try await origins()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("body.bin")
        try resourceBytes(count: 100_000).write(to: file)
        let fromFile = canaryRequest(.put, from: origins.a, to: origins.a + "/echo", status: 307).body(fileAt: file)
        let echo = try await style.send(fromFile, through: transport()).get().echo()
        #expect(echo.method == "PUT" && echo.bodyData == resourceBytes(count: 100_000))

        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("streamed".utf8))
            continuation.finish()
        }
        let streamed = canaryRequest(.post, from: origins.a, to: origins.a + "/echo", status: 307)
            .body(streaming: chunks, length: nil)
        let error = try #require(await style.send(streamed, through: transport()).failure)
        #expect(error.code == .bodyNotRewindable)
    }

    @Test("A → other origin → A: the stripped secrets are not restored on the way back", arguments: ClientStyle.allCases)
    func secretsNotRestored(style: ClientStyle) async throws {
        let origins = try await origins()
        let back = origins.otherPort + "/redirect-to?url=" + PercentEncoding.encoded(origins.a + "/echo/back")
        let response = try await style.send(canaryRequest(from: origins.a, to: back), through: transport()).get()
        #expect(response.url == origins.a + "/echo/back")
        #expect(response.redirects.count == 2)
        expectReceived(try response.echo(), survivors: Self.crossOriginSurvivors)
    }

    @Test("allExceptSensitive forwards custom headers, never credentials or sensitive ones", arguments: ClientStyle.allCases)
    func permissiveOption(style: ClientStyle) async throws {
        let origins = try await origins()
        let transport = try await transport { $0.redirects = RedirectPolicy(crossOriginHeaders: .allExceptSensitive) }
        let echo = try await style.send(canaryRequest(from: origins.a, to: origins.otherHost + "/echo"), through: transport).get().echo()
        expectReceived(echo, survivors: ["X-Trace", "X-Forward-Me", "Accept"])
    }

    @Test("Credentials in the configuration's default headers do not cross origins either", arguments: ClientStyle.allCases)
    func defaultHeadersFiltered(style: ClientStyle) async throws {
        let origins = try await origins()
        let transport = try await transport {
            $0.defaultHeaders[.authorization] = "Bearer default-secret"
            $0.defaultHeaders[HTTPField.Name("X-Client-Id")!] = "default-id"
        }
        let request = Request.get(origins.a + "/redirect-to").query("url", origins.otherPort + "/echo")
        let echo = try await style.send(request, through: transport).get().echo()
        #expect(echo.header("Authorization").isEmpty)
        #expect(echo.header("X-Client-Id").isEmpty)
        #expect(echo.header("User-Agent").first?.hasPrefix("CurlBridge/") == true)
        let same = try await style.send(Request.get(origins.a + "/redirect/1"), through: transport).get().echo()
        #expect(same.header("Authorization") == ["Bearer default-secret"])
    }

    @Test("https → http is refused unless the policy allows the downgrade", arguments: ClientStyle.allCases)
    func downgrade(style: ClientStyle) async throws {
        let origins = try await origins()
        let request = canaryRequest(from: origins.a, to: origins.plainA + "/echo")
        let refused = try #require(await style.send(request, through: transport()).failure)
        #expect(refused.code == .insecureRedirect)
        #expect(refused.response?.status.code == 302)

        let allowing = try await transport { $0.redirects = RedirectPolicy(allowsDowngradeToPlainHTTP: true) }
        let response = try await style.send(request, through: allowing).get()
        #expect(response.url == origins.plainA + "/echo")
        expectReceived(try response.echo(), survivors: Self.crossOriginSurvivors)
    }

    @Test("Redirects to file:, ftp: and other schemes are refused", arguments: ClientStyle.allCases, ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/"])
    func otherSchemes(style: ClientStyle, location: String) async throws {
        let origins = try await origins()
        let error = try #require(await style.send(canaryRequest(from: origins.a, to: location), through: transport()).failure)
        #expect(error.code == .insecureRedirect)
    }

    @Test("A loop and an eleventh hop fail with tooManyRedirects; ten hops succeed", arguments: ClientStyle.allCases)
    func hopLimits(style: ClientStyle) async throws {
        let transport = try await transport()
        let loop = try #require(await style.send(.get("redirect-loop"), through: transport).failure)
        #expect(loop.code == .tooManyRedirects)
        let eleven = try #require(await style.send(.get("redirect/11"), through: transport).failure)
        #expect(eleven.code == .tooManyRedirects)
        let ten = try await style.send(.get("redirect/10"), through: transport).get()
        #expect(ten.status == .ok)
        #expect(ten.redirects.count == 10 && ten.metrics.redirectCount == 10)
        #expect(ten.url.hasSuffix("/redirect/0"))
        #expect(try ten.echo().path == "/redirect/0")
    }

    @Test("Following can be turned off, per client and per request", arguments: ClientStyle.allCases)
    func notFollowing(style: ClientStyle) async throws {
        let off = try await transport { $0.redirects = .none }
        let first = try await style.send(.get("redirect/3"), through: off).get()
        #expect(first.status.code == 302 && first.headerFields[.location] == "/redirect/2" && first.redirects.isEmpty)
        let perRequest = try await style.send(Request.get("redirect/3").redirects(RedirectPolicy(maximumHops: 5)), through: off).get()
        #expect(perRequest.status == .ok && perRequest.redirects.count == 3)
        let stoppedHere = try await style.send(Request.get("redirect/3").redirects(.none), through: transport()).get()
        #expect(stoppedHere.status.code == 302)
        #expect(!RedirectPolicy.none.followsRedirects)
        // A limit of zero hops is a limit, as in curl: the first redirect fails.
        let zeroHops = try await style.send(Request.get("redirect/3").redirects(RedirectPolicy(maximumHops: 0)), through: transport())
        #expect(zeroHops.failure?.code == .tooManyRedirects)
    }

    @Test("A client's redirect handler can stop or modify; a request's handler replaces it", arguments: ClientStyle.allCases)
    func handlers(style: ClientStyle) async throws {
        let stopAtSecond = try await transport {
            $0.redirects = RedirectPolicy(handler: { $0.hop < 2 ? .follow : .stop })
        }
        let stopped = try await style.send(.get("redirect/3"), through: stopAtSecond).get()
        #expect(stopped.status.code == 302 && stopped.redirects.count == 1)
        #expect(stopped.url.hasSuffix("/redirect/2"))

        let tagging = RedirectPolicy(handler: { .followModified($0.next.header("X-Hop", "\($0.hop)")) })
        let tagged = try await style.send(Request.get("redirect/1").redirects(tagging), through: stopAtSecond).get()
        #expect(try tagged.echo().header("X-Hop") == ["1"])
    }

    @Test("The total timeout spans every hop", arguments: ClientStyle.allCases)
    func deadlineSpansHops(style: ClientStyle) async throws {
        // Two hops of at least 600 ms each: either fits in 1 s, both cannot.
        let request = Request.get("redirect-to").query("url", "/delay/600").query("delay", "600")
            .timeout(total: .seconds(1))
        let error = try #require(await style.send(request, through: transport()).failure)
        #expect(error.code == .totalTimedOut)
    }

    @Test("A stream gets only the final head and body; the redirect's body is drained, never delivered", arguments: ClientStyle.allCases, [1000, 3 << 20])
    func streaming(style: ClientStyle, redirectBodyBytes: Int) async throws {
        let origins = try await origins()
        let request = Request.get(origins.a + "/redirect-to").query("url", origins.otherPort + "/bytes/5000")
            .query("body-bytes", "\(redirectBodyBytes)")
        let outcome = await style.stream(request, through: try await transport())
        #expect(outcome.error == nil)
        let head = try #require(outcome.head)
        #expect(head.status == .ok && head.url == origins.otherPort + "/bytes/5000")
        #expect(head.redirects.map(\.status.code) == [302])
        expectSameBytes(outcome.body, resourceBytes(count: 5000, version: 0))
    }

    @Test("A collected body is the final hop's alone: another origin's redirect body never reaches it", arguments: ClientStyle.allCases, [1000, 3 << 20])
    func collectedBodyIsTheFinalHopsOnly(style: ClientStyle, redirectBodyBytes: Int) async throws {
        let origins = try await origins()
        let request = Request.get(origins.a + "/redirect-to").query("url", origins.otherPort + "/bytes/5000")
            .query("body-bytes", "\(redirectBodyBytes)")
        let response = try await style.send(request, through: try await transport()).get()
        #expect(response.status == .ok && response.url == origins.otherPort + "/bytes/5000")
        #expect(response.redirects.map(\.status.code) == [302])
        expectSameBytes(response.body, resourceBytes(count: 5000, version: 0))
    }

    @Test("A download follows redirects and records them", arguments: ClientStyle.allCases)
    func download(style: ClientStyle) async throws {
        let origins = try await origins()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let request = Request.get(origins.a + "/redirect-to").query("url", origins.otherHost + "/resource/70000")
            .query("status", "307")
        let response = try await style.download(request, to: destination, through: transport()).get()
        #expect(response.status == .ok && response.redirects.map(\.status.code) == [307])
        #expect(response.url == origins.otherHost + "/resource/70000")
        expectSameBytes(try Data(contentsOf: destination), resourceBytes(count: 70000))
    }

    @Test("A cancel before, between or during hops ends the chain with exactly one cancelled completion")
    func cancelAcrossHops() async throws {
        let rounds = 60
        let roundHeader = HTTPField.Name("X-Round")!
        // Hops followed, per round (rounds overlap: a round's cancel waits for its own hops).
        let hopsFollowed = Mutex([Int](repeating: 0, count: rounds))
        let transport = try await transport {
            $0.redirects = RedirectPolicy(handler: { context in
                if let round = context.request.headerFields[roundHeader].flatMap(Int.init) {
                    hopsFollowed.withLock { $0[round] += 1 }
                }
                return .follow
            })
        }
        let completions = Mutex([[RequestError.Code?]](repeating: [], count: rounds))
        // The chain ends at a route that never answers: only the cancel can end it (a lost cancel
        // would end at the 10 s idle timeout instead, failing the code check).
        let chain = Request.get("redirect-to").query("url", "/redirect-to?url=/never-respond").timeout(idle: .seconds(10))
        for round in 0..<rounds {
            let handle = try #require(transport.start(chain.header("X-Round", "\(round)"), events: TransferEvents { outcome in
                completions.withLock { $0[round].append(outcome.failure?.code) }
            }))
            let hops = round % 3  // cancel after 0 (at once), 1 or 2 followed hops
            if hops == 0 {
                handle.cancel()
            } else {
                #expect(await poll(within: .seconds(60), until: { hopsFollowed.withLock { $0[round] } >= hops }, then: handle.cancel))
            }
        }
        #expect(await poll(within: .seconds(60), until: { completions.withLock { $0.allSatisfy { !$0.isEmpty } } }))
        await transport.drainEvents()
        #expect(completions.withLock { $0 }.allSatisfy { $0 == [.cancelled] })
        #expect(transport.inFlightCount == 0)
    }

    @Test("Cancelling the task during the second hop cancels the chain")
    func taskCancellationAcrossHops() async throws {
        let followed = Mutex(false)
        let client = AsyncClient(transport: try await transport {
            $0.redirects = RedirectPolicy(handler: { _ in
                followed.withLock { $0 = true }
                return .follow
            })
        })
        let task = Task { () async throws(RequestError) -> Response in
            try await client.send(Request.get("redirect-to").query("url", "/never-respond"))
        }
        #expect(await poll(within: .seconds(60), until: { followed.withLock { $0 } }))
        try await client.transport.waitUntilInFlight(1)
        task.cancel()
        #expect((await task.result.failure as? RequestError)?.code == .cancelled)
    }

    @Test("A request's own credential stays on its origin; per-origin credentials go to their origin only, hop by hop",
          arguments: ClientStyle.allCases)
    func credentialsAcrossHops(style: ClientStyle) async throws {
        let origins = try await origins()
        let otherHost = try #require(Credential.Origin(origins.otherHost))
        let transport = try await transport { $0.credentials = [otherHost: .bearer("other-host-token")] }
        // A → other host: the request's bearer token stays behind; the other host's own credential is used.
        let toOther = Request.get(origins.a + "/redirect-to").query("url", origins.otherHost + "/echo").bearerToken("request-token")
        #expect(try await style.send(toOther, through: transport).get().echo().header("Authorization") == ["Bearer other-host-token"])
        // A → other port (no credential configured): nothing.
        let toPort = Request.get(origins.a + "/redirect-to").query("url", origins.otherPort + "/echo").bearerToken("request-token")
        #expect(try await style.send(toPort, through: transport).get().echo().header("Authorization").isEmpty)
        // Same origin: the request's own credential is kept.
        let same = Request.get(origins.a + "/redirect/1").bearerToken("request-token")
        #expect(try await style.send(same, through: transport).get().echo().header("Authorization") == ["Bearer request-token"])
    }

    @Test("Progress reports the final transfer only: nothing of a redirect's body, never going backwards", arguments: ClientStyle.allCases)
    func progressAcrossHops(style: ClientStyle) async throws {
        let log = ProgressLog()
        let request = Request.get("redirect-to").query("url", "/bytes/100000").query("body-bytes", "50000")
        let response = try await style.send(request, progress: log.record, through: transport()).get()
        #expect(response.body.count == 100_000 && response.redirects.count == 1)
        let received = log.all.map(\.bytesReceived)
        #expect(received == received.sorted(), "\(received)")
        #expect(received.last == 100_000)
    }
}
