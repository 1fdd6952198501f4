@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

@Suite struct RequestPreparationTests {
    let configuration = Configuration(baseURL: URL(string: "https://api.example.com/v1/"))

    func prepared(_ request: Request) throws -> PreparedRequest {
        try request.prepared(with: RequestDefaults(configuration)).get()
    }

    func problem(_ request: Request, _ configuration: Configuration? = nil) -> RequestError? {
        request.prepared(with: RequestDefaults(configuration ?? self.configuration)).failure
    }

    /// The transport's default header lines are shared by every request that adds nothing to
    /// them (issue 37): one request's credential must not reach the shared list, and so the next
    /// request of the same transport.
    @Test func oneRequestsCredentialStaysOutOfTheSharedDefaultLines() throws {
        var configuration = Configuration(baseURL: URL(string: "https://api.example.com/v1/"))
        configuration.defaultHeaders[.accept] = "application/json"
        let defaults = RequestDefaults(configuration)
        let alice = try Request.get("me").credential(.bearer("alice-token")).prepared(with: defaults).get()
        let anonymous = try Request.get("me").prepared(with: defaults).get()
        #expect(alice.headerLines.contains("Authorization: Bearer alice-token"))
        #expect(anonymous.headerLines == defaults.lines)
        #expect(!anonymous.headerLines.contains { $0.lowercased().hasPrefix("authorization") })
        #expect(!defaults.lines.contains { $0.lowercased().hasPrefix("authorization") })
    }

    @Test func relativePathResolvesAgainstBaseURL() throws {
        #expect(try prepared(.get("users/42")).url == "https://api.example.com/v1/users/42")
    }

    @Test(arguments: [
        ("https://api.example.com/v1", "users", "https://api.example.com/v1/users"),
        ("https://api.example.com/v1/", "users/42", "https://api.example.com/v1/users/42"),
        ("https://api.example.com/v1", "/status", "https://api.example.com/status"),
        ("https://api.example.com", "users", "https://api.example.com/users"),
        ("https://api.example.com/v1", "../v2/users", "https://api.example.com/v2/users"),
        ("https://api.example.com/v1?key=1", "users", "https://api.example.com/v1/users"),
    ])
    func baseURLWithoutTrailingSlashIsADirectory(base: String, path: String, expected: String) throws {
        let defaults = RequestDefaults(Configuration(baseURL: URL(string: base)))
        #expect(try Request.get(path).prepared(with: defaults).get().url == expected)
    }

    @Test func absoluteURLWinsOverBaseURL() throws {
        #expect(try prepared(.get("http://other.example/x")).url == "http://other.example/x")
    }

    @Test func queryItemsArePercentEncodedPerRFC3986AndMergedWithTheURLQuery() throws {
        let request = Request.get("search?lang=en").query("q", "a b&c/é").query("flag", nil).query("tilde", "-._~")
        #expect(try prepared(request).url == "https://api.example.com/v1/search?lang=en&q=a%20b%26c%2F%C3%A9&flag&tilde=-._~")
    }

    @Test func fragmentIsDroppedSoQueryItemsStayInTheQuery() throws {
        #expect(try prepared(.get("page#top").query("a", "1")).url == "https://api.example.com/v1/page?a=1")
    }

    @Test(arguments: [
        ("http://h.example/x?a=1", "http://h.example/x?a=1&q=v"),
        ("http://h.example/x?", "http://h.example/x?q=v"),
        ("http://h.example/x?a=1&", "http://h.example/x?a=1&q=v"),
        ("HTTPS://h.example:8443/x#frag", "HTTPS://h.example:8443/x?q=v"),
        ("https://user:pw@h.example/", "https://user:pw@h.example/?q=v"),  // over http: credentialsOverPlainHTTP
        ("http://[::1]:8080/x", "http://[::1]:8080/x?q=v"),
    ])
    func absoluteURLsKeepTheirQueryAndLoseTheirFragment(url: String, expected: String) throws {
        #expect(try prepared(.get(url).query("q", "v")).url == expected)
    }

    @Test func malformedPercentEscapesAreNotPassedThroughVerbatim() {
        switch Request.get("http://h.example/a%zz%4").prepared(with: RequestDefaults(configuration)) {
        case .success(let prepared): #expect(!prepared.url.contains("%zz"))
        case .failure(let error): #expect(error.code == .invalidURL)
        }
    }

    @Test(arguments: ["http://:80/", "http://@/x", "http://?q"])
    func absoluteURLWithoutAHostIsRefused(url: String) {
        #expect(problem(.get(url))?.code == .invalidURL)
    }

    @Test func requestHeadersWinOverDefaultHeadersByName() throws {
        let lines = try prepared(.get("x").header("user-agent", "Mine/1").header("X-Extra", "1")).headerLines
        #expect(lines.filter { $0.lowercased().hasPrefix("user-agent") } == ["user-agent: Mine/1"])
        #expect(lines.contains("X-Extra: 1"))
    }

    @Test func expectIsSuppressedOnlyWhereCurlWouldSendIt() throws {
        #expect(try !prepared(.get("x")).headerLines.contains("Expect:"))
        #expect(try prepared(.post("x").body("large or small")).headerLines.contains("Expect:"))
        #expect(try prepared(.post("x").header("Expect", "100-continue").body("b")).headerLines.filter { $0.hasPrefix("Expect") } == ["Expect: 100-continue"])
    }

    @Test func defaultUserAgentNamesCurlBridgeAndLibcurl() throws {
        let agent = try #require(try prepared(.get("x")).headerLines.first { $0.hasPrefix("User-Agent") })
        #expect(agent.contains("CurlBridge/\(CurlBridgeVersion.current)"))
        #expect(agent.contains("libcurl/7."))
    }

    @Test func emptyHeaderValueUsesCurlsSemicolonForm() throws {
        #expect(try prepared(.get("x").header("X-Empty", "")).headerLines.contains("X-Empty;"))
    }

    @Test func bodyContentTypeIsSentUnlessTheRequestSetsOne() throws {
        #expect(try prepared(.post("x").body("hi")).headerLines.contains("Content-Type: text/plain; charset=utf-8"))
        let own = try prepared(.post("x").header("Content-Type", "text/csv").body("a,b")).headerLines
        #expect(own.filter { $0.lowercased().hasPrefix("content-type") } == ["Content-Type: text/csv"])
    }

    @Test func formBodyEncodesSpacesAsPlus() throws {
        let body = try #require(Request.post("x").form(["name": "Ada Lovelace", "note": "a&b=c"]).body?.data)
        #expect(String(decoding: body, as: UTF8.self) == "name=Ada+Lovelace&note=a%26b%3Dc")
    }

    @Test func requestTimeoutsOverrideOnlyTheFieldsTheySet() throws {
        let request = try prepared(.get("x").timeout(total: .milliseconds(1500)))
        #expect(request.timeLimits.totalMilliseconds == 1500)
        #expect(request.timeLimits.connectMilliseconds == 30_000)
        #expect(request.timeLimits.idleNanoseconds == 60_000_000_000)
    }

    @Test(arguments: ["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u{0}b"])
    func headerValueWithControlCharacterIsRefused(value: String) {
        #expect(problem(.get("x").header("X-Test", value))?.code == .invalidHeader)
    }

    @Test(arguments: ["", "Bad Name", "Bad:Name", "X-\r\n"])
    func invalidHeaderNameIsRefused(name: String) {
        #expect(problem(.get("x").header(name, "v"))?.code == .invalidHeader)
    }

    @Test(arguments: ["", "GET /", "GE\r\nT", "G\u{0}ET"])
    func invalidMethodIsRefused(name: String) {
        #expect(problem(Request(method: name, url: "x"))?.code == .invalidMethod)
    }

    @Test func customMethodTokenIsAccepted() throws {
        #expect(try prepared(Request(method: "PROPFIND", url: "x")).method.rawValue == "PROPFIND")
    }

    @Test(arguments: ["ftp://example.com/file", "file:///etc/passwd", "gopher://x/", "dict://x/"])
    func nonHTTPSchemeIsRefused(url: String) {
        #expect(problem(.get(url))?.code == .unsupportedScheme)
    }

    @Test(arguments: ["http://", "http:///path", "http://[::1"])
    func unparseableOrHostlessURLIsRefused(url: String) {
        #expect(problem(.get(url))?.code == .invalidURL)
    }

    @Test func relativeURLWithoutBaseURLIsRefused() {
        #expect(problem(.get("users/1"), Configuration())?.code == .invalidURL)
    }

    @Test func unencodableJSONIsRefusedWithTheEncodingError() {
        let error = problem(.post("x").json(["value": Double.nan]))
        #expect(error?.code == .encodingFailed)
        #expect(error?.underlying is EncodingError)
    }

    @Test func firstProblemIsTheOneReported() {
        let error = problem(.post("x").header("Bad Name", "v").json(["value": Double.infinity]))
        #expect(error?.code == .invalidHeader)
    }
}
