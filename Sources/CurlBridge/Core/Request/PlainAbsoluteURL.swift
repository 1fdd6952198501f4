/// An absolute `http` or `https` URL made only of characters RFC 3986 allows, with a plain
/// (non-IPv6-literal) host: the common case, checked without a general URL parser.
///
/// Anything else — relative references, IPv6 literals, spaces, non-ASCII text — is left to
/// Foundation's parser, which resolves, percent-encodes or rejects it.
struct PlainAbsoluteURL {
    /// The URL without its fragment (never sent).
    let string: String
    /// Whether its authority carries user info (`user:password@`): a credential that a request
    /// to a plain `http` host may not send. For a plain URL, found by the same pass that checks
    /// it, so that preparing the common request reads its URL once; for one a general parser
    /// resolved, by ``StoredURL/hasUserInfo(_:)``, the check a stored URL is held to.
    let hasUserInfo: Bool
    /// Whether its scheme is `https` (else it is `http`: no other scheme is resolved), so that the
    /// transfer's setup (proxy, HTTP/2), the credential rule and the cache's partition need not
    /// compare the string's prefix again. For a plain URL, found by the pass that checks it; for
    /// one a general parser resolved, by comparing its prefix once.
    let usesTLS: Bool

    /// The URL, or `nil` when it is not a plain absolute http(s) URL.
    init?(_ url: String) {
        var url = url
        guard let (fragmentStart, hasUserInfo, usesTLS) = url.withUTF8(Self.plainLength) else { return nil }
        string = fragmentStart == url.utf8.count ? url : String(url.utf8.prefix(fragmentStart))!
        self.hasUserInfo = hasUserInfo
        self.usesTLS = usesTLS
    }

    /// The length of `url` before its fragment, whether its authority has user info and whether
    /// its scheme is `https`, when it is a plain absolute http(s) URL; `nil` if it is not: one
    /// pass over the bytes (this runs for every request).
    private static func plainLength(_ url: UnsafeBufferPointer<UInt8>) -> (Int, hasUserInfo: Bool, usesTLS: Bool)? {
        guard let schemeLength = schemeLength(url) else { return nil }
        var index = schemeLength  // the scheme's bytes are allowed ones
        var hostStart = schemeLength
        // The authority, up to the first `/`, `?` or `#`: user info ends at `@`, and the host
        // must not be empty, an IPv6 literal or start with a port.
        authority: while index < url.count {
            let byte = url[index]
            if isIn(byte, below64: authorityPlainBelow64, from64: authorityPlainFrom64) {
                index += 1
                continue
            }
            guard isAllowed(byte) else { return nil }
            switch byte {
            case UInt8(ascii: "%"):
                guard isEscape(url, at: index) else { return nil }
                index += 3
                continue
            case UInt8(ascii: "@"):
                hostStart = index + 1
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"):
                break authority
            default:
                break
            }
            index += 1
        }
        guard index > hostStart, url[hostStart] != UInt8(ascii: ":"), url[hostStart] != UInt8(ascii: "[") else { return nil }
        // The path, query and fragment: allowed bytes and whole escapes.
        var fragmentStart: Int?
        while index < url.count {
            let byte = url[index]
            if isIn(byte, below64: pathPlainBelow64, from64: allowedFrom64) {
                index += 1
                continue
            }
            guard isAllowed(byte) else { return nil }
            if byte == UInt8(ascii: "%") {
                guard isEscape(url, at: index) else { return nil }
                index += 3
                continue
            }
            if byte == UInt8(ascii: "#"), fragmentStart == nil { fragmentStart = index }
            index += 1
        }
        return (fragmentStart ?? url.count, hostStart > schemeLength, schemeLength == 8)
    }

    /// 7 for `http://` and 8 for `https://`, in any case, followed by at least one byte; `nil`
    /// otherwise. The first eight bytes compared as one word, each scheme letter set to lowercase
    /// by its 0x20 bit (exact for letters: no other byte reads as one so), the `://` as it is.
    private static func schemeLength(_ url: UnsafeBufferPointer<UInt8>) -> Int? {
        guard url.count >= 8, let start = url.baseAddress else { return nil }
        let word = UInt64(littleEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt64.self))
        if (word | 0x2020_2020) & 0x00FF_FFFF_FFFF_FFFF == 0x002F_2F3A_7074_7468 { return 7 }  // "http://"
        if url.count > 8, word | 0x20_2020_2020 == 0x2F2F_3A73_7074_7468 { return 8 }  // "https://"
        return nil
    }

    /// Whether the `%` at `index` starts a whole escape: two hex digits follow.
    private static func isEscape(_ url: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        index + 2 < url.count && isHexDigit(url[index + 1]) && isHexDigit(url[index + 2])
    }

    /// This URL with `query` appended to its own query (`nil`: unchanged).
    func appending(query: String?) -> PlainAbsoluteURL {
        guard let query else { return self }
        guard let questionMark = string.utf8.firstIndex(of: UInt8(ascii: "?")) else {
            return PlainAbsoluteURL(string: string + "?" + query, hasUserInfo: hasUserInfo, usesTLS: usesTLS)
        }
        let separator = questionMark == string.utf8.index(before: string.utf8.endIndex) || string.hasSuffix("&") ? "" : "&"
        return PlainAbsoluteURL(string: string + separator + query, hasUserInfo: hasUserInfo, usesTLS: usesTLS)
    }

    private init(string: String, hasUserInfo: Bool, usesTLS: Bool) {
        self.string = string
        self.hasUserInfo = hasUserInfo
        self.usesTLS = usesTLS
    }

    /// A URL that a general parser has already validated and resolved (absolute, with a
    /// `scheme://` authority); its fragment is dropped.
    init(parsed url: String) {
        string = Self.withoutFragment(url)
        hasUserInfo = StoredURL.hasUserInfo(string)
        usesTLS = string.hasASCIIPrefixIgnoringCase("https:")
    }

    /// `url` up to its first `#`.
    private static func withoutFragment(_ url: String) -> String {
        guard let hash = url.utf8.firstIndex(of: UInt8(ascii: "#")) else { return url }
        return String(url[..<hash])
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        UInt8(ascii: "0")...UInt8(ascii: "9") ~= byte || UInt8(ascii: "a")...UInt8(ascii: "f") ~= (byte | 0x20)
    }

    /// RFC 3986 unreserved, reserved and `%`: one bit per byte, for bytes 0–63 and 64–127
    /// (`ALPHA DIGIT - . _ ~ % : / ? # [ ] @ ! $ & ' ( ) * + , ; =`).
    private static let allowedBelow64: UInt64 = 0xAFFF_FFFA_0000_0000
    static let allowedFrom64: UInt64 = 0x47FF_FFFE_AFFF_FFFF

    /// The allowed bytes that need no second look in the authority (all but `%`, `/`, `?`, `#`
    /// and `@`) and in the path, query and fragment (all but `%` and `#`).
    /// (A byte these leave out only takes the slower path: the parts still end and escape
    /// where they did; `PlainAbsoluteURLTests` holds the sets to their definitions.)
    static let authorityPlainBelow64: UInt64 = 0x2FFF_7FD2_0000_0000
    static let authorityPlainFrom64: UInt64 = 0x47FF_FFFE_AFFF_FFFE
    static let pathPlainBelow64: UInt64 = 0xAFFF_FFD2_0000_0000

    /// Whether RFC 3986 allows `byte` in a URL (unreserved, reserved or `%`).
    static func isAllowed(_ byte: UInt8) -> Bool {
        isIn(byte, below64: allowedBelow64, from64: allowedFrom64)
    }

    /// Whether `byte` is in the set of ASCII bytes given as two bit sets, for bytes 0–63 and 64–127.
    @inline(__always)
    static func isIn(_ byte: UInt8, below64: UInt64, from64: UInt64) -> Bool {
        byte < 64 ? below64 >> byte & 1 == 1 : byte < 128 && from64 >> (byte &- 64) & 1 == 1
    }
}
