import HTTPTypes

/// The `Cache-Control` directives of a request or a response (RFC 9111 §5.2), from every
/// `Cache-Control` field line: names are matched case-insensitively, a value may be a token or a
/// quoted string, and a directive whose value is not a valid number is treated as absent, but
/// for `max-age`, which a cache must then treat as stale (§4.2.1).
struct CacheControl: Equatable {
    /// `max-age`, in seconds; `0` when it was given an invalid value. The first one counts.
    var maxAge: Int?
    /// `max-stale`: `.some(nil)` when given without a value (any staleness).
    var maxStale: Int??
    /// `min-fresh`, in seconds.
    var minFresh: Int?
    /// `s-maxage`, in seconds: a shared cache's lifetime, which a private cache ignores but for
    /// RFC 9111 §3.5 (it lets a response to a credentialed request be stored).
    var sharedMaxAge: Int?
    var noCache = false
    var noStore = false
    /// `must-understand`: store only a status the cache understands, then regardless of `no-store`.
    var mustUnderstand = false
    var onlyIfCached = false
    var mustRevalidate = false
    var isPublic = false
    var isPrivate = false

    /// The directives of `fields`' `Cache-Control` lines.
    init(_ fields: HTTPFields) {
        for line in fields[values: .cacheControl] {
            for (name, value) in Self.directives(line) { apply(name, value) }
        }
    }

    private mutating func apply(_ name: String, _ value: Substring?) {
        switch name {
        case "max-age": if maxAge == nil { maxAge = value.flatMap(Self.seconds) ?? 0 }
        case "max-stale": if maxStale == nil { maxStale = .some(value.flatMap(Self.seconds)) }
        case "min-fresh": if minFresh == nil, let seconds = value.flatMap(Self.seconds) { minFresh = seconds }
        case "s-maxage": if sharedMaxAge == nil, let seconds = value.flatMap(Self.seconds) { sharedMaxAge = seconds }
        case "no-cache": noCache = true
        case "no-store": noStore = true
        case "must-understand": mustUnderstand = true
        case "only-if-cached": onlyIfCached = true
        // `proxy-revalidate` binds shared caches only (§5.2.2.8): a private cache ignores it.
        case "must-revalidate": mustRevalidate = true
        case "public": isPublic = true
        case "private": isPrivate = true
        default: break
        }
    }

    /// A delta-seconds value (§1.2.2): digits only; one above 2^31 - 1 counts as 2^31 - 1, as
    /// §1.2.2 allows, so that no age or lifetime computed from it overflows (`Age:
    /// 9223372036854775807` fits an `Int` but becomes 2^63 as a `Double`, which no `Int` holds).
    static func seconds(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return min(Int(text) ?? .max, Int(Int32.max))
    }

    /// The `name[=value]` pairs of one field line, names lowercased, quotes removed from values.
    static func directives(_ line: String) -> [(String, Substring?)] {
        var result: [(String, Substring?)] = []
        var rest = Substring(line)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard !rest.isEmpty else { break }
            let nameEnd = rest.firstIndex { $0 == "=" || $0 == "," } ?? rest.endIndex
            let name = rest[..<nameEnd].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[nameEnd...]
            var value: Substring?
            if rest.first == "=" {
                rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                if rest.first == "\"" {
                    let body = rest.dropFirst()
                    let close = body.firstIndex(of: "\"") ?? body.endIndex
                    value = body[..<close]
                    rest = close == body.endIndex ? body[close...] : body[body.index(after: close)...]
                    rest = rest.drop { $0 != "," }
                } else {
                    let end = rest.firstIndex(of: ",") ?? rest.endIndex
                    value = Substring(rest[..<end].trimmingCharacters(in: .whitespaces))
                    rest = rest[end...]
                }
            }
            if !name.isEmpty { result.append((name, value)) }
        }
        return result
    }
}
