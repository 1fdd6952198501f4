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

    private mutating func apply(_ name: String, _ value: String?) {
        switch name {
        case "max-age": if maxAge == nil { maxAge = value.flatMap(Self.seconds) ?? 0 }
        // Without a value: any staleness; with one that is not a number: absent.
        case "max-stale": if maxStale == nil, value == nil || value.flatMap(Self.seconds) != nil { maxStale = .some(value.flatMap(Self.seconds)) }
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

    /// A delta-seconds value (§1.2.2): ASCII digits only; one above 2^31 - 1 counts as 2^31 - 1,
    /// as §1.2.2 allows, so that no age or lifetime computed from it overflows (`Age:
    /// 9223372036854775807` fits an `Int` but becomes 2^63 as a `Double`, which no `Int` holds).
    static func seconds(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return min(Int(text) ?? .max, Int(Int32.max))
    }

    /// The `name[=value]` pairs of one field line, names lowercased (ASCII), values without their
    /// quotes and with their quoted-pairs (`\"`) unescaped (RFC 9110 §5.6.4). Read byte by byte,
    /// so that a delimiter followed by a combining mark still delimits; spaces and tabs around
    /// names and token values are dropped, as are stray bytes after a quoted string.
    static func directives(_ line: String) -> [(name: String, value: String?)] {
        let bytes = Array(line.utf8)
        var index = 0
        var result: [(name: String, value: String?)] = []
        func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        func trimmed(_ range: Range<Int>) -> ArraySlice<UInt8> {
            var slice = bytes[range]
            while let first = slice.first, isWhitespace(first) { slice.removeFirst() }
            while let last = slice.last, isWhitespace(last) { slice.removeLast() }
            return slice
        }
        while index < bytes.count {
            while index < bytes.count, bytes[index] == UInt8(ascii: ",") || isWhitespace(bytes[index]) { index += 1 }
            guard index < bytes.count else { break }
            let nameStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ",") { index += 1 }
            let name = String(decoding: trimmed(nameStart..<index).map(Self.asciiLowercased), as: UTF8.self)
            var value: String?
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    index += 1
                    var unescaped: [UInt8] = []
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                        if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                        unescaped.append(bytes[index])
                        index += 1
                    }
                    value = String(decoding: unescaped, as: UTF8.self)
                    while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
                } else {
                    let valueStart = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
                    value = String(decoding: trimmed(valueStart..<index), as: UTF8.self)
                }
            }
            if !name.isEmpty { result.append((name, value)) }
        }
        return result
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
