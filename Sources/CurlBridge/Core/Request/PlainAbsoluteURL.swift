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
        var url = url
        guard let fragmentStart = url.withUTF8(Self.plainLength) else { return nil }
        string = fragmentStart == url.utf8.count ? url : String(url.utf8.prefix(fragmentStart))!
    }

    /// The length of `url` before its fragment when it is a plain absolute http(s) URL, `nil` if
    /// it is not: one pass over the bytes (this runs for every request).
    private static func plainLength(_ url: UnsafeBufferPointer<UInt8>) -> Int? {
        let schemeLength: Int
        if ASCIIBytes.hasPrefix(UnsafeRawBufferPointer(url), "http://") {
            schemeLength = 7
        } else if ASCIIBytes.hasPrefix(UnsafeRawBufferPointer(url), "https://") {
            schemeLength = 8
        } else {
            return nil
        }
        var hostStart = schemeLength
        var authorityEnded = false
        var fragmentStart: Int?
        var index = 0
        while index < url.count {
            let byte = url[index]
            guard isAllowed(byte) else { return nil }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < url.count, isHexDigit(url[index + 1]), isHexDigit(url[index + 2]) else { return nil }
                index += 3
                continue
            }
            if index >= schemeLength, !authorityEnded {
                switch byte {
                case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"):
                    authorityEnded = true
                    guard index > hostStart, url[hostStart] != UInt8(ascii: ":"), url[hostStart] != UInt8(ascii: "[") else { return nil }
                case UInt8(ascii: "@"):
                    hostStart = index + 1
                default:
                    break
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

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        UInt8(ascii: "0")...UInt8(ascii: "9") ~= byte || UInt8(ascii: "a")...UInt8(ascii: "f") ~= (byte | 0x20)
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
