@testable import CurlBridge
import CurlBridgeTestServer
import Testing

/// The fast URL check, held to the one it replaced (issue 37: a byte bit set and one pass per
/// part instead of a `switch` per byte): the same URLs are plain, with the same fragment cut.
@Suite struct PlainAbsoluteURLTests {
    @Test func theBitSetAllowsExactlyRFC3986sCharacters() {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%:/?#[]@!$&'()*+,;=".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(PlainAbsoluteURL.isAllowed(byte) == allowed.contains(byte), "byte \(byte)")
        }
    }

    @Test func theFastPathsBitSetsAreTheAllowedBytesTheirPartsNeedNoSecondLookAt() {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%:/?#[]@!$&'()*+,;=".utf8)
        let authorityPlain = allowed.subtracting("%/?#@".utf8)
        let pathPlain = allowed.subtracting("%#".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(PlainAbsoluteURL.isIn(
                byte, below64: PlainAbsoluteURL.authorityPlainBelow64, from64: PlainAbsoluteURL.authorityPlainFrom64
            ) == authorityPlain.contains(byte), "authority byte \(byte)")
            #expect(PlainAbsoluteURL.isIn(
                byte, below64: PlainAbsoluteURL.pathPlainBelow64, from64: PlainAbsoluteURL.allowedFrom64
            ) == pathPlain.contains(byte), "path byte \(byte)")
        }
    }

    @Test func typicalURLs() {
        #expect(PlainAbsoluteURL("http://127.0.0.1:8080/small")?.string == "http://127.0.0.1:8080/small")
        #expect(PlainAbsoluteURL("https://user:pw@example.com/a%20b?q=1#frag")?.string == "https://user:pw@example.com/a%20b?q=1")
        #expect(PlainAbsoluteURL("HTTPS://example.com")?.string == "HTTPS://example.com")
        #expect(PlainAbsoluteURL("http://[::1]/") == nil)
        #expect(PlainAbsoluteURL("http://:80/") == nil)
        #expect(PlainAbsoluteURL("http:///path") == nil)
        #expect(PlainAbsoluteURL("http://host/a b") == nil)
        #expect(PlainAbsoluteURL("http://host/%4") == nil)
        #expect(PlainAbsoluteURL("ftp://host/") == nil)
    }

    @Test func userInfoIsFoundInTheAuthorityOnly() {
        #expect(PlainAbsoluteURL("http://user:pw@example.com/")?.hasUserInfo == true)
        #expect(PlainAbsoluteURL("http://a@b@c/d")?.hasUserInfo == true)
        #expect(PlainAbsoluteURL("http://example.com/a@b")?.hasUserInfo == false)
        #expect(PlainAbsoluteURL("http://example.com?to=a@b")?.hasUserInfo == false)
        #expect(PlainAbsoluteURL("http://example.com#a@b")?.hasUserInfo == false)
        #expect(PlainAbsoluteURL("http://example.com/%40")?.hasUserInfo == false)
        #expect(PlainAbsoluteURL(parsed: "http://u:p@[::1]/x").hasUserInfo)
        #expect(!PlainAbsoluteURL(parsed: "http://[::1]/x@y").hasUserInfo)
        #expect(PlainAbsoluteURL("http://u@h/")?.appending(query: "q=1").hasUserInfo == true)
        let parsed = PlainAbsoluteURL(parsed: "http://u@h/").appending(query: "q=1")
        #expect(parsed.string == "http://u@h/?q=1" && parsed.hasUserInfo)
        #expect(!PlainAbsoluteURL(parsed: "http://h/").appending(query: "to=a@b").hasUserInfo)
    }

    @Test func theSchemeIsReadWithTheURL() {
        #expect(PlainAbsoluteURL("https://example.com/")?.usesTLS == true)
        #expect(PlainAbsoluteURL("HTTPS://example.com/")?.usesTLS == true)
        #expect(PlainAbsoluteURL("http://example.com/https://x")?.usesTLS == false)
        #expect(PlainAbsoluteURL("HtTp://example.com/")?.usesTLS == false)
        #expect(PlainAbsoluteURL("https://h/")?.appending(query: "q=1").usesTLS == true)
        #expect(PlainAbsoluteURL(parsed: "https://[::1]/").usesTLS)
        #expect(!PlainAbsoluteURL(parsed: "http://[::1]/https:").usesTLS)
        #expect(PlainAbsoluteURL(parsed: "HTTPS://[::1]/").appending(query: "q=1").usesTLS)
    }

    /// The scheme is read as one word: only `http://` and `https://`, letters in either case,
    /// and a byte after it; no byte that differs from a scheme letter only in its 0x20 bit.
    @Test func theSchemeWordMatchesOnlyHTTPAndHTTPS() {
        #expect(PlainAbsoluteURL("Http://h")?.usesTLS == false)
        #expect(PlainAbsoluteURL("hTTpS://h")?.usesTLS == true)
        #expect(PlainAbsoluteURL("http://") == nil)
        #expect(PlainAbsoluteURL("https://") == nil)
        #expect(PlainAbsoluteURL("http:/h") == nil)
        #expect(PlainAbsoluteURL("http\u{1A}//h") == nil, "0x1A is ':' without its 0x20 bit")
        #expect(PlainAbsoluteURL("https\u{1A}//h") == nil)
        #expect(PlainAbsoluteURL("httpS\u{1A}/h") == nil)
        #expect(PlainAbsoluteURL("http\u{0F}//h") == nil, "0x0F is '/' without its 0x20 bit")
        #expect(PlainAbsoluteURL("httpx://h") == nil)
        #expect(PlainAbsoluteURL("\u{08}ttp://h") == nil, "0x08 is 'h' without its 0x60 bits")
    }

    @Test func mutatedURLsGetTheReferenceVerdict() {
        var random = SeededGenerator(seed: 0x3737_0001)
        let seeds = [
            "http://127.0.0.1:8080/small", "https://user:pw@example.com:8443/a/b%20c?x=1&y=%2F#top",
            "http://a@b@c/d", "https://example.com?q#f#g", "http://h/%zz", "https://[v6]/",
        ]
        let pieces: [UInt8] = Array("%@/?#:[] aZ0-~!$&'()*+,;=_.\u{7f}".utf8) + [0, 0x80, 0xff]
        var plain = 0, fragments = 0, withUserInfo = 0
        for _ in 0..<20_000 {
            var bytes = Array(seeds.randomElement(using: &random)!.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes.insert(pieces.randomElement(using: &random)!, at: at)
                case 1 where at < bytes.count: bytes.remove(at: at)
                default: if at < bytes.count { bytes[at] = pieces.randomElement(using: &random)! }
                }
            }
            let url = String(decoding: bytes, as: UTF8.self)
            let expected = url.utf8.withContiguousStorageIfAvailable(Self.referencePlainLength)!
                .map { String(url.utf8.prefix($0))! }
            let fast = PlainAbsoluteURL(url)
            #expect(fast?.string == expected, "\(url.debugDescription)")
            // The user info both ways of finding it see is what the reference scan sees.
            if let fast {
                let reference = Self.referenceHasUserInfo(fast.string)
                #expect(fast.hasUserInfo == reference, "\(url.debugDescription)")
                #expect(PlainAbsoluteURL(parsed: url).hasUserInfo == reference, "\(url.debugDescription)")
                #expect(fast.usesTLS == url.lowercased().hasPrefix("https:"), "\(url.debugDescription)")
                #expect(PlainAbsoluteURL(parsed: url).usesTLS == fast.usesTLS, "\(url.debugDescription)")
                withUserInfo += reference ? 1 : 0
            }
            if let expected { plain += 1; fragments += expected.utf8.count < url.utf8.count ? 1 : 0 }
        }
        // Both verdicts, and fragment cuts, are common enough for the comparison to mean something.
        #expect(plain > 2_000 && plain < 18_000 && fragments > 500, "plain \(plain), fragments cut \(fragments)")
        #expect(withUserInfo > 500 && withUserInfo < plain - 500, "with user info \(withUserInfo) of \(plain)")
    }

    /// The user-info check as it was before issue 37's seventh session, kept here as the reference:
    /// an `@` between `scheme://` and the first `/`, `?` or `#`.
    private static func referenceHasUserInfo(_ url: String) -> Bool {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 2 < bytes.count,
              bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return false }
        for byte in bytes[(colon + 3)...] {
            if byte == UInt8(ascii: "@") { return true }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { return false }
        }
        return false
    }

    /// The check as it was before issue 37: a `switch` per byte over the whole URL.
    private static func referencePlainLength(_ url: UnsafeBufferPointer<UInt8>) -> Int? {
        let schemeLength: Int
        if ASCIIBytes.hasPrefix(UnsafeRawBufferPointer(url), "http://") {
            schemeLength = 7
        } else if ASCIIBytes.hasPrefix(UnsafeRawBufferPointer(url), "https://") {
            schemeLength = 8
        } else {
            return nil
        }
        var hostStart = schemeLength, authorityEnded = false, fragmentStart: Int?, index = 0
        while index < url.count {
            let byte = url[index]
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                break
            case _ where "-._~%:/?#[]@!$&'()*+,;=".utf8.contains(byte):
                break
            default:
                return nil
            }
            if byte == UInt8(ascii: "%") {
                let isHex = { (byte: UInt8) in "0123456789abcdef".utf8.contains(byte | 0x20) }
                guard index + 2 < url.count, isHex(url[index + 1]), isHex(url[index + 2]) else { return nil }
                index += 3
                continue
            }
            if index >= schemeLength, !authorityEnded {
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                    authorityEnded = true
                    guard index > hostStart, url[hostStart] != UInt8(ascii: ":"), url[hostStart] != UInt8(ascii: "[") else { return nil }
                } else if byte == UInt8(ascii: "@") {
                    hostStart = index + 1
                }
            }
            if byte == UInt8(ascii: "#"), fragmentStart == nil { fragmentStart = index }
            index += 1
        }
        if !authorityEnded {
            guard url.count > hostStart, url[hostStart] != UInt8(ascii: ":"), url[hostStart] != UInt8(ascii: "[") else { return nil }
        }
        return fragmentStart ?? url.count
    }
}
