@testable import CurlBridge
import Testing

/// `CurlDebugRecorder.cookieLines(inRequestHead:)`: the `Cookie` values of a request head as curl
/// logs it, which decide whether a cached response is stored (whose it is).
@Suite struct SentCookieLinesTests {
    private func lines(_ head: String) -> [String] {
        Array(head.utf8).withUnsafeBytes { CurlDebugRecorder.cookieLines(inRequestHead: $0) }
    }

    @Test("Every Cookie line's value, in order, in any case of the name, without the blanks around it")
    func everyCookieLine() {
        let head = "GET /a HTTP/1.1\r\nHost: h\r\nCookie: a=1; b=2\r\ncookie:\tc=3 \t\r\nCOOKIE:d=4\r\n\r\n"
        #expect(lines(head) == ["a=1; b=2", "c=3", "d=4"])
    }

    @Test("Not the request line, other fields ending or starting in cookie, nor a value's colons")
    func onlyCookieFields() {
        let head = "Cookie: x HTTP/1.1\r\nSet-Cookie: s=1\r\nCookies: t=2\r\nX-Cookie: u=3\r\nCookie: v=a:b\r\nCookie:\r\n\r\n"
        #expect(lines(head) == ["v=a:b", ""])
    }

    @Test("A head without cookies, an empty head and bare LF line ends")
    func noCookies() {
        #expect(lines("GET / HTTP/1.1\r\nHost: h\r\n\r\n").isEmpty)
        #expect(lines("").isEmpty)
        #expect(lines("GET / HTTP/1.1\nCookie: w=1\n\n") == ["w=1"])
    }
}
