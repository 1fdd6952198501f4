#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// A request as the cache sees it: method, key, header fields, policy, and whose it is.
struct CacheRequest: Sendable {
    var method: HTTPRequest.Method
    /// The absolute URL without user info or fragment: the cache key, with the partition.
    var url: String
    var headerFields: HTTPFields
    var policy: CachePolicy
    /// Whose credentials the request carries and under which trust it is sent, as a keyed hash
    /// (``CachePartitioner``): it is answered only by responses stored under the same partition.
    /// `nil` when it cannot be told (the cookie jar could not be read): the cache keeps out.
    var partition: String?
    /// Whether it carries credentials to the origin: an `Authorization` field, a challenged
    /// credential or user info (RFC 9111 §3.5).
    var isCredentialed: Bool
    /// The values of fields curl adds itself, by lowercased name, for `Vary` to compare: the
    /// `Cookie` it adds from the jar, the `Authorization` of user info or a challenge.
    var addedFields: [String: String]
    /// The cache's key, for the variant's values.
    var keyedHash: KeyedHash
    /// What the partition is a keyed hash of, to compare it with what curl sent.
    var identity: CacheIdentity

    init(
        method: HTTPRequest.Method, url: String, headerFields: HTTPFields, policy: CachePolicy, partition: String? = "",
        isCredentialed: Bool? = nil, addedFields: [String: String] = [:], keyedHash: KeyedHash = KeyedHash(key: []),
        identity: CacheIdentity = CacheIdentity()
    ) {
        self.method = method
        self.url = Self.key(url).url
        self.headerFields = headerFields
        self.policy = policy
        self.partition = partition
        self.isCredentialed = isCredentialed ?? (headerFields[.authorization] != nil)
        self.addedFields = addedFields
        self.keyedHash = keyedHash
        self.identity = identity
    }

    /// `url` without its fragment, split from its user info (`user:password`, without the `@`).
    /// Read as UTF-8 bytes: every delimiter is ASCII, which no byte of another character can be.
    static func key(_ url: String) -> (url: String, userInfo: Substring?) {
        let bytes = url.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        let unfragmented = url[..<end]
        guard let authorityStart = authorityStart(of: unfragmented) else { return (String(unfragmented), nil) }
        let authority = bytes[authorityStart..<end]
        let authorityEnd = authority.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? end
        guard let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else {
            return (String(unfragmented), nil)
        }
        return (String(url[..<authorityStart] + url[bytes.index(after: at)..<end]), url[authorityStart..<at])
    }

    /// Where the authority of `url` begins: after its first `://`.
    private static func authorityStart(of url: Substring) -> String.Index? {
        let bytes = url.utf8
        var index = bytes.startIndex
        while let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")) {
            let rest = bytes[colon...].prefix(3)
            if rest.elementsEqual("://".utf8) { return bytes.index(colon, offsetBy: 3) }
            index = bytes.index(after: colon)
        }
        return nil
    }

    /// The request's `Cache-Control`, with `Pragma: no-cache` read as `no-cache` when it has none
    /// (RFC 9111 §5.4).
    var cacheControl: CacheControl {
        var control = CacheControl(headerFields)
        if headerFields[.cacheControl] == nil,
           headerFields[values: HTTPField.Name("Pragma")!].contains(where: { $0.lowercased().contains("no-cache") }) {
            control.noCache = true
        }
        return control
    }

    /// Whether the caller asked for a range, made the request conditional on a state the cache
    /// cannot judge, or named another host than its URL's (`Host`: another resource, and the host
    /// curl matches cookies by): the cache then keeps out of it.
    var isPartialOrPrecondition: Bool {
        Self.bypassingNames.contains { headerFields[$0] != nil }
    }

    /// Whether the caller made the request conditional with validators (`If-None-Match`,
    /// `If-Modified-Since`): a fresh stored response can answer it with `304` (RFC 9111 §4.3.2).
    var hasValidators: Bool {
        headerFields[.ifNoneMatch] != nil || headerFields[.ifModifiedSince] != nil
    }

    /// The request's values of the fields `names` (lowercased, as `Vary` lists them), as a stored
    /// variant keeps them: each a keyed hash of the value curl sends — what curl adds itself when
    /// it does (``addedFields``), else the request's lines of that name joined by commas — so that
    /// no value is kept as it is. A name the request does not send is absent.
    func variant(of names: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names where name != "*" {
            guard let field = HTTPField.Name(name) else { continue }
            let lines = headerFields[values: field]
            guard let sent = addedFields[name] ?? (lines.isEmpty ? nil : Self.normalised(lines.joined(separator: ","))) else {
                continue
            }
            values[name] = keyedHash.hex { fields in
                fields.add("vary")
                fields.add(name)
                fields.add(sent)
            }
        }
        return values
    }

    /// A field value with the whitespace around its commas removed, so that `a, b` matches `a,b`.
    private static func normalised(_ value: String) -> String {
        value.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingWhitespace() }.joined(separator: ",")
    }

    /// Whether `stored` satisfies the caller's validators: an entity tag `If-None-Match` lists
    /// (weak comparison), or else no change since `If-Modified-Since`.
    func isNotModified(_ stored: StoredResponse) -> Bool {
        if let tags = headerFields[.ifNoneMatch] {
            guard let etag = stored.headerFields[.eTag] else { return false }
            let listed = tags.split(separator: ",").map { Self.weak($0.trimmingWhitespace()) }
            return listed.contains("*") || listed.contains(Self.weak(etag))
        }
        guard let since = headerFields[.ifModifiedSince].flatMap(HTTPDate.parse),
              let modified = (stored.headerFields[HTTPField.Name("Last-Modified")!] ?? stored.headerFields[.date]).flatMap(HTTPDate.parse)
        else { return false }
        return modified <= since
    }

    /// An entity tag without its weakness marker.
    private static func weak(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }

    private static let bypassingNames: [HTTPField.Name] = [
        .range, .ifMatch, .ifUnmodifiedSince, HTTPField.Name("If-Range")!, HTTPField.Name("Host")!,
    ]
}
