@testable import CurlBridge
import Foundation
import Testing

/// The `Cookie` value: Netscape cookie-file lines as curl prints and reads them, and URL matching.
@Suite struct CookieLineTests {
    @Test func linesPrintAsCurlPrintsThem() {
        let session = Cookie(name: "sid", value: "abc", domain: "127.0.0.1")
        #expect(session.netscapeLine == "127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tabc")
        let everything = Cookie(
            name: "pref", value: "", domain: "Example.COM", includesSubdomains: true, path: "/app",
            isSecure: true, isHTTPOnly: true, expires: Date(timeIntervalSince1970: 1_767_225_600.75))
        #expect(everything.netscapeLine == "#HttpOnly_.example.com\tTRUE\t/app\tTRUE\t1767225600\tpref\t")
    }

    @Test func linesParseBackToTheSameCookie() throws {
        let cookies = [
            Cookie(name: "sid", value: "abc", domain: "127.0.0.1"),
            Cookie(name: "pref", value: "", domain: "example.com", includesSubdomains: true, path: "/app",
                   isSecure: true, isHTTPOnly: true, expires: Date(timeIntervalSince1970: 1_767_225_600)),
            Cookie(name: "v", value: "a=b,c d", domain: "localhost", path: "/x/y/"),
        ]
        for cookie in cookies {
            #expect(Cookie(netscapeLine: cookie.netscapeLine) == cookie)
        }
    }

    /// curl keeps a `Path` as the server wrote it and matches on its sanitised form: the jar
    /// lists such a cookie and matches it as curl sends it.
    @Test(arguments: [
        ("account", "/", "/anything", true), ("\"/a\"", "/a", "/a/b", true), ("/dir/", "/dir", "/dir", true),
        ("/dir/", "/dir", "/directory", false), ("/", "/", "/x", true), ("\"/a/\"", "/a", "/a", true),
    ])
    func pathsAsCurlKeepsAndMatchesThem(written: String, matching: String, requestPath: String, matches: Bool) throws {
        let cookie = try #require(Cookie(netscapeLine: "example.com\tFALSE\t\(written)\tFALSE\t0\ta\tb"))
        #expect(cookie.path == written && cookie.matchingPath == matching)
        #expect(cookie.matches(try #require(URLComponents(string: "http://example.com\(requestPath)")), at: Date()) == matches)
    }

    @Test func aLeadingDotMeansSubdomainsToo() throws {
        let parsed = try #require(Cookie(netscapeLine: ".example.com\tTRUE\t/\tFALSE\t0\ta\tb"))
        #expect(parsed.domain == "example.com")
        #expect(parsed.includesSubdomains)
        #expect(Cookie(name: "a", value: "b", domain: ".example.com").includesSubdomains)
    }

    @Test func commentsBlankAndMalformedLinesAreNotCookies() {
        for line in ["# Netscape HTTP Cookie File", "", "example.com\tFALSE\t/\tFALSE\t0",
                     "example.com\tFALSE\t\tFALSE\t0\ta\tb", "example.com\tFALSE\t/\tFALSE\tsoon\ta\tb"] {
            #expect(Cookie(netscapeLine: line) == nil, "\(line.debugDescription)")
        }
        #expect(Cookie(netscapeLine: "example.com\tFALSE\t/\tFALSE\t0\tempty") == Cookie(name: "empty", value: "", domain: "example.com"))
    }

    @Test func descriptionHidesTheValue() {
        let cookie = Cookie(name: "sid", value: "secret-value", domain: "example.com", isSecure: true)
        #expect(!cookie.description.contains("secret-value"))
        #expect(cookie.description.contains("sid="))
    }

    @Test func fieldsACookieCannotHaveAreProblems() {
        #expect(Cookie(name: "a", value: "b", domain: "example.com").problem == nil)
        #expect(Cookie(name: "", value: "b", domain: "example.com").problem != nil)
        #expect(Cookie(name: "a", value: "b;c", domain: "example.com").problem != nil)
        #expect(Cookie(name: "a", value: "b\nSet-Cookie: x=y", domain: "example.com").problem != nil)
        #expect(Cookie(name: "a=b", value: "c", domain: "example.com").problem != nil)
        #expect(Cookie(name: "a", value: "b", domain: "").problem != nil)
        #expect(Cookie(name: "a", value: "b", domain: "example.com", path: "app").problem != nil)
    }

    @Test(arguments: [
        ("http://example.com/app", true), ("http://example.com/app/x", true), ("http://EXAMPLE.com/app/", true),
        ("http://example.com/", false), ("http://example.com/application", false), ("http://api.example.com/app", false),
    ])
    func hostOnlyCookieMatchesItsHostAndPath(url: String, matches: Bool) throws {
        let cookie = Cookie(name: "a", value: "b", domain: "example.com", path: "/app")
        #expect(cookie.matches(try #require(URLComponents(string: url)), at: Date()) == matches)
    }

    @Test func domainCookiesMatchSubdomainsButNeverByIPSuffix() throws {
        let domain = Cookie(name: "a", value: "b", domain: "example.com", includesSubdomains: true)
        #expect(domain.matches(try #require(URLComponents(string: "https://api.example.com/x")), at: Date()))
        #expect(!domain.matches(try #require(URLComponents(string: "https://badexample.com/")), at: Date()))
        let address = Cookie(name: "a", value: "b", domain: "0.0.1", includesSubdomains: true)
        #expect(!address.matches(try #require(URLComponents(string: "http://127.0.0.1/")), at: Date()))
    }

    @Test func secureCookiesMatchHTTPSAndLoopbackNamesOnly() throws {
        let secure = Cookie(name: "a", value: "b", domain: "example.com", includesSubdomains: true, isSecure: true)
        #expect(secure.matches(try #require(URLComponents(string: "https://example.com/")), at: Date()))
        #expect(!secure.matches(try #require(URLComponents(string: "http://example.com/")), at: Date()))
        let loopback = Cookie(name: "a", value: "b", domain: "localhost", isSecure: true)
        #expect(loopback.matches(try #require(URLComponents(string: "http://localhost:8080/")), at: Date()))
    }

    @Test func expiredCookiesMatchNothing() throws {
        let expired = Cookie(name: "a", value: "b", domain: "example.com", expires: Date(timeIntervalSince1970: 1000))
        #expect(!expired.matches(try #require(URLComponents(string: "http://example.com/")), at: Date()))
    }
}
