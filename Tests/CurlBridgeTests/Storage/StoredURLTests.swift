@testable import CurlBridge
import Testing

/// What of a URL goes to disk, with no I/O.
@Suite("StoredURL: a URL as written to disk")
struct StoredURLTests {
    @Test("User info goes, whatever it holds; the rest stays as written", arguments: [
        ("http://alice:hunter2@example.com/a?b=1", "http://example.com/a?b=1"),
        ("https://alice@example.com:8443/", "https://example.com:8443/"),
        ("http://a%40b:p%3Aw@example.com", "http://example.com"),
        ("http://a@b@example.com/x", "http://example.com/x"),
        ("HTTP://u:p@Example.com?q", "HTTP://Example.com?q"),
        ("//u:p@example.com/x", "//example.com/x"),
        ("http://example.com/path@not-user-info", "http://example.com/path@not-user-info"),
        ("http://example.com?next=http://u:p@x", "http://example.com?next=http://u:p@x"),
        ("resource/1000?a=1", "resource/1000?a=1"),
        ("http://example.com/a#u:p@frag", "http://example.com/a"),
    ])
    func userInfoIsRemoved(url: String, stored: String) {
        #expect(StoredURL(url).string == stored)
        #expect(!StoredURL(url).omitsQuery)
        #expect(!StoredURL.hasUserInfo(StoredURL(url).string))
    }

    @Test("Without its query when asked: everything from the first ?")
    func queryIsLeftOut() {
        let stored = StoredURL("https://u:p@cdn.example/f.iso?X-Amz-Signature=abc&access_token=t#x", keepsQuery: false)
        #expect(stored.string == "https://cdn.example/f.iso")
        #expect(stored.omitsQuery)
        #expect(!StoredURL("https://cdn.example/f.iso", keepsQuery: false).omitsQuery, "nothing was left out")
    }

    @Test("hasUserInfo looks only at the authority")
    func userInfoIsFound() {
        #expect(StoredURL.hasUserInfo("http://u@h/"))
        #expect(!StoredURL.hasUserInfo("http://h/@x"))
        #expect(!StoredURL.hasUserInfo("mailto:u@h"))
    }
}
