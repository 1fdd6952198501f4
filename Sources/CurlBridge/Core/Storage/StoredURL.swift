/// A URL as it may be written to disk (a download queue's journal, resume data, a program's own
/// record of its downloads): never with the user info of its authority (`user:password@`), which
/// curl would send as credentials, never with its fragment, and without its query when asked — a
/// signed URL's query is a bearer secret.
///
/// Text, not a parsed URL: what comes out is the URL as given, minus those parts. The user info is
/// everything in the authority (after `scheme://` or a leading `//`, before the first `/`, `?` or
/// `#`) up to its last `@`: more than curl's parser would take as user info, never less.
public struct StoredURL: Sendable, Hashable {
    /// The URL to store.
    public let string: String
    /// Whether a query was left out (``init(_:keepsQuery:)`` with `keepsQuery: false`).
    public let omitsQuery: Bool

    /// `url` without its user info and fragment, and without its query unless `keepsQuery`.
    public init(_ url: String, keepsQuery: Bool = true) {
        var bytes = Array(url.utf8)
        if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) { bytes.removeSubrange(hash...) }
        if let authority = Self.authorityRange(bytes),
           let at = bytes[authority].lastIndex(of: UInt8(ascii: "@")) {
            bytes.removeSubrange(authority.lowerBound...at)
        }
        var omitsQuery = false
        if !keepsQuery, let question = bytes.firstIndex(of: UInt8(ascii: "?")) {
            bytes.removeSubrange(question...)
            omitsQuery = true
        }
        string = String(decoding: bytes, as: UTF8.self)
        self.omitsQuery = omitsQuery
    }

    /// Whether `url` has user info in its authority.
    static func hasUserInfo(_ url: String) -> Bool {
        let bytes = Array(url.utf8)
        return authorityRange(bytes).map { bytes[$0].contains(UInt8(ascii: "@")) } ?? false
    }

    /// Where the authority of `bytes` is: after `scheme://` (a scheme of letters, digits, `+`, `-`
    /// and `.` starting with a letter) or a leading `//`, up to the first `/`, `?` or `#`.
    private static func authorityRange(_ bytes: [UInt8]) -> Range<Int>? {
        let start: Int
        if bytes.starts(with: "//".utf8) {
            start = 2
        } else {
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
                  bytes[colon...].starts(with: "://".utf8), isAlpha(bytes[0]),
                  bytes[..<colon].allSatisfy({ isAlpha($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
            else { return nil }
            start = colon + 3
        }
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        return start..<end
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}
