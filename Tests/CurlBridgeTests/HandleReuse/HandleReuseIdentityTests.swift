@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Testing

/// A reused easy handle carries no header, credential or cookie of the request it served before
/// (`CURLOPT_HTTPHEADER`, `HTTPAUTH`/`USERNAME`/`PASSWORD` and curl's Digest state, the cookie
/// share), in every style.
@Suite(.hangGuard) struct HandleReuseIdentityTests {
    @Test(arguments: ClientStyle.allCases)
    func customHeadersAndUserAgentAreNotSentAgain(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let first = Request.get("echo").header("X-Custom", "1").setHeader("User-Agent", "Custom-Agent/9")
        let a = try await style.send(first, through: transport).get().echo()
        #expect(a.header("X-Custom") == ["1"] && a.header("User-Agent") == ["Custom-Agent/9"])

        let b = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get().echo() }
        #expect(b.header("X-Custom").isEmpty)
        #expect(b.header("User-Agent") == [try #require(Configuration.standardHeaders[.userAgent])])
    }

    /// libcurl 7.88 keeps a custom `Host` header's host on the handle, across `curl_easy_reset`, for
    /// matching cookies (CVE-2026-6276): such a handle is cleaned up, never reused.
    @Test(arguments: ClientStyle.allCases)
    func aHandleThatSentItsOwnHostHeaderIsNotReused(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        _ = try await style.send(.get("echo"), through: transport).get()
        let plain = transport.reusedEasyHandleCount
        let a = try await style.send(Request.get("echo").setHeader("Host", "other.example"), through: transport).get().echo()
        #expect(a.header("Host") == ["other.example"])
        #expect(transport.reusedEasyHandleCount == plain + 1)  // A itself reused the first request's handle
        let b = try await style.send(.get("echo"), through: transport).get().echo()
        #expect(transport.reusedEasyHandleCount == plain + 1)  // B did not get A's
        #expect(b.header("Host") != ["other.example"])
    }

    /// With no default headers, B has no header list at all: curl must not fall back on A's.
    @Test(arguments: ClientStyle.allCases)
    func aRequestWithoutHeadersSendsNoneOfThePreviousOnes(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.defaultHeaders = [:]; $0.reusesEasyHandles = true }
        let first = Request.get("echo").header("X-Custom", "1").setHeader("User-Agent", "Custom-Agent/9").header("Accept", "text/x-a")
        _ = try await style.send(first, through: transport).get()
        let b = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get().echo() }
        #expect(b.header("X-Custom").isEmpty)
        #expect(b.header("User-Agent").isEmpty)
        #expect(b.header("Accept") == ["*/*"])  // curl's own default, not A's
    }

    /// Credentials A, by scheme: the request, and the route that accepts it.
    static let credentials: [String: (request: Request, route: String)] = [
        "basic": (Request.get("basic-auth/ada/s3cret").basicAuth(username: "ada", password: "s3cret"), "basic-auth/ada/s3cret"),
        "bearer": (Request.get("bearer-auth/t0k").bearerToken("t0k"), "bearer-auth/t0k"),
        "digest": (Request.get("digest-auth/ada/s3cret").credential(.digest(username: "ada", password: "s3cret")), "digest-auth/ada/s3cret"),
    ]

    @Test(arguments: ClientStyle.allCases, credentials.keys.sorted())
    func credentialsAreNotSentByTheNextRequest(style: ClientStyle, scheme: String) async throws {
        let (first, route) = try #require(Self.credentials[scheme])
        let transport = Fixture.transport(try await Fixture.server(), tls: true) { $0.reusesEasyHandles = true }
        let a = try await style.send(first, through: transport).get()
        #expect(a.status == .ok)
        #expect(try a.echo().header("Authorization").count == 1)

        let echo = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get().echo() }
        #expect(echo.header("Authorization").isEmpty)
        // The protected route, without credentials: its challenge is the answer, not a success.
        let b = try await transport.reusingAHandle { try await style.send(.get(route), through: transport).get() }
        #expect(b.status == .unauthorized)
        #expect(String(decoding: b.body, as: UTF8.self) == "unauthorized\n")
        #expect(b.headerFields[.wwwAuthenticate] != nil)
    }

    /// Digest forces HTTP/1.1 on its transfer (see ``ChallengeCredential``): a POST with a body after
    /// it, without credentials, is sent once, whole, and unauthenticated.
    @Test(arguments: ClientStyle.allCases)
    func aBodyAfterADigestExchangeIsSentOnceWithoutAuthorization(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: true) { $0.reusesEasyHandles = true }
        let digest = Request.post("digest-auth/ada/s3cret").credential(.digest(username: "ada", password: "s3cret"))
        #expect(try await style.send(digest.body("first"), through: transport).get().status == .ok)
        let body = Data("second".utf8)
        let echo = try await transport.reusingAHandle { try await style.send(.post("echo").body(body), through: transport).get().echo() }
        #expect(echo.header("Authorization").isEmpty)
        #expect(echo.bodyData == body)
    }

    @Test(arguments: ClientStyle.allCases)
    func aRequestOptingOutOfTheJarSendsAndStoresNoCookie(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let jar = try #require(transport.cookies)
        _ = try await style.send(.get("response-headers").query("Set-Cookie", "kept=1; Path=/"), through: transport).get()
        let a = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get().echo() }
        #expect(a.header("Cookie") == ["kept=1"])

        let b = try await transport.reusingAHandle {
            try await style.send(.get("echo").cookies(false), through: transport).get().echo()
        }
        #expect(b.header("Cookie").isEmpty)
        // Nor does a response to such a request reach the jar.
        _ = try await transport.reusingAHandle {
            try await style.send(.get("response-headers").query("Set-Cookie", "ignored=1; Path=/").cookies(false), through: transport).get()
        }
        #expect(try jar.cookies().map(\.name) == ["kept"])
        // And a request using the jar after them has it again.
        let c = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get().echo() }
        #expect(c.header("Cookie") == ["kept=1"])
    }

    /// A `Cookie` header set on one request is not sent by the next, with or without the jar.
    @Test(arguments: ClientStyle.allCases)
    func anExplicitCookieHeaderIsNotSentAgain(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let a = try await style.send(.get("echo").header("Cookie", "mine=1").cookies(false), through: transport).get().echo()
        #expect(a.header("Cookie") == ["mine=1"])
        for next in [Request.get("echo"), Request.get("echo").cookies(false)] {
            let b = try await transport.reusingAHandle { try await style.send(next, through: transport).get().echo() }
            #expect(b.header("Cookie").isEmpty)
        }
        #expect(try #require(transport.cookies).cookies().isEmpty)
    }
}
