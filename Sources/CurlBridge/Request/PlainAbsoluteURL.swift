/// An absolute `http` or `https` URL made only of characters RFC 3986 allows, with a plain
/// (non-IPv6-literal) host: the common case, checked without a general URL parser.
///
/// Anything else — relative references, IPv6 literals, spaces, non-ASCII text — is left to
/// Foundation's parser, which resolves, percent-encodes or rejects it.
struct PlainAbsoluteURL {
    /// The URL without its fragment (never sent).
    let string: String

    /// The URL, or `nil` when it is not a plain absolute http(s) URL.
    init?(_ url: String) {
        var utf8 = url.utf8[...]
        let schemeLength: Int
        if Self.hasPrefix(utf8, "http://") {
            schemeLength = 7
        } else if Self.hasPrefix(utf8, "https://") {
            schemeLength = 8
        } else {
            return nil
        }
        utf8 = utf8.dropFirst(schemeLength)
        let hostEnd = utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? utf8.endIndex
        let authority = utf8[..<hostEnd]
        let host = authority.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false).last ?? authority
        guard let first = host.first, first != UInt8(ascii: ":"), first != UInt8(ascii: "["),
              url.utf8.allSatisfy(Self.isAllowed), Self.hasWellFormedEscapes(url.utf8)
        else { return nil }
        string = Self.withoutFragment(url)
    }

    /// This URL with `query` appended to its own query (`nil`: unchanged).
    func appending(query: String?) -> String {
        guard let query else { return string }
        guard let questionMark = string.utf8.firstIndex(of: UInt8(ascii: "?")) else { return string + "?" + query }
        let separator = questionMark == string.utf8.index(before: string.utf8.endIndex) || string.hasSuffix("&") ? "" : "&"
        return string + separator + query
    }

    /// A URL that a general parser has already validated and resolved; its fragment is dropped.
    init(parsed url: String) {
        string = Self.withoutFragment(url)
    }

    /// `url` up to its first `#`.
    private static func withoutFragment(_ url: String) -> String {
        guard let hash = url.utf8.firstIndex(of: UInt8(ascii: "#")) else { return url }
        return String(url[..<hash])
    }

    private static func hasPrefix(_ utf8: Substring.UTF8View, _ prefix: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard utf8.count >= expected.count else { return false }
        return zip(utf8, expected).allSatisfy { actual, wanted in actual | 0x20 == wanted }
    }

    /// Whether every `%` is followed by two hex digits.
    private static func hasWellFormedEscapes(_ utf8: String.UTF8View) -> Bool {
        var index = utf8.startIndex
        while let percent = utf8[index...].firstIndex(of: UInt8(ascii: "%")) {
            let digits = utf8[utf8.index(after: percent)...].prefix(2)
            guard digits.count == 2, digits.allSatisfy({ UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0 || UInt8(ascii: "a")...UInt8(ascii: "f") ~= ($0 | 0x20) })
            else { return false }
            index = digits.endIndex
        }
        return true
    }

    /// RFC 3986 unreserved, reserved and `%`.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"),
            UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}
