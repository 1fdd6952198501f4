/// Takes secrets out of what the transport logs, as ``LoggingOptions`` describes: URLs lose
/// their user info and sensitive query values, header lines their sensitive values, free text
/// (curl's verbose output) the request's known secret strings.
///
/// Everything is a byte scan — no URL parser, nothing that can fail or trap on odd input — and
/// with ``LoggingOptions/revealsSecretsForDebugging`` every method returns its input as is.
struct LogRedactor: Sendable {
    /// What a secret is replaced with.
    static let placeholder = "<redacted>"
    /// Known secrets shorter than this are not searched for in free text: a two-letter password
    /// would otherwise shred every line.
    static let minimumSecretLength = 3
    /// Headers whose values are always redacted, lowercased.
    static let alwaysSensitiveHeaderNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
    /// Headers whose values are URLs, redacted as URLs (pseudo-headers included), lowercased.
    static let urlHeaderNames: Set<String> = ["location", "content-location", "referer", ":path"]

    /// Whether nothing is redacted.
    let revealsSecrets: Bool
    /// Query parameter names whose values are redacted, lowercased.
    let sensitiveQueryNames: Set<String>
    /// Header names whose values are redacted, lowercased.
    let sensitiveHeaderNames: Set<String>
    /// Known secrets, longest first (so that a secret containing another is replaced whole).
    let secrets: [[UInt8]]
    /// For each byte, whether some secret starts with it: most positions are skipped on one lookup.
    private let secretStarts: [Bool]

    /// A redactor for `options`.
    ///
    /// - Parameters:
    ///   - sensitiveHeaderNames: Header names redacted besides ``alwaysSensitiveHeaderNames``
    ///     (any case).
    ///   - secrets: Strings replaced wherever they appear in free text; those shorter than
    ///     ``minimumSecretLength`` bytes are ignored.
    init(options: LoggingOptions, sensitiveHeaderNames: some Sequence<String> = [String](), secrets: some Sequence<String> = [String]()) {
        revealsSecrets = options.revealsSecretsForDebugging
        sensitiveQueryNames = options.lowercasedQueryNames
        var headers = Self.alwaysSensitiveHeaderNames
        for name in sensitiveHeaderNames { headers.insert(Self.lowercased(name.utf8)) }
        self.sensitiveHeaderNames = headers
        var unique = Set<[UInt8]>()
        for secret in secrets where secret.utf8.count >= Self.minimumSecretLength { unique.insert(Array(secret.utf8)) }
        self.secrets = unique.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
        var starts = [Bool](repeating: false, count: 256)
        for secret in self.secrets { starts[Int(secret[0])] = true }
        secretStarts = starts
    }

    // MARK: URLs

    /// `url` without user info (`https://user:pass@host/` → `https://host/`) and with the values
    /// of sensitive query (and fragment) parameters replaced by ``placeholder``. Absolute,
    /// scheme-relative and relative URLs and request targets are all accepted; anything
    /// unrecognisable is passed through with only these two rules applied where they fit.
    func url(_ url: some StringProtocol) -> String {
        guard !revealsSecrets else { return String(url) }
        var out: [UInt8] = []
        out.reserveCapacity(url.utf8.count)
        appendURL(Array(url.utf8)[...], to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the redacted form of the URL `bytes` (see ``url(_:)``) to `out`.
    func appendURL(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        guard !revealsSecrets else { return out.append(contentsOf: bytes) }
        var index = bytes.startIndex
        if let authority = Self.authorityStart(bytes) {
            out.append(contentsOf: bytes[index..<authority])
            let end = bytes[authority...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
                ?? bytes.endIndex
            let host = bytes[authority..<end].lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? authority
            out.append(contentsOf: bytes[host..<end])
            index = end
        }
        let pathEnd = bytes[index...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        out.append(contentsOf: bytes[index..<pathEnd])
        index = pathEnd
        // The query and the fragment, as parameters: `?a=1&token=x#access_token=y`.
        while index < bytes.endIndex {
            out.append(bytes[index])  // a separator: ? & or #
            let start = index + 1
            let end = bytes[start...].firstIndex(where: Self.isParameterSeparator) ?? bytes.endIndex
            appendParameter(bytes[start..<end], to: &out)
            index = end
        }
    }

    /// Where the authority of `bytes` starts (after `scheme://` or a leading `//`), if it has one.
    private static func authorityStart(_ bytes: ArraySlice<UInt8>) -> Int? {
        var index = bytes.startIndex
        if bytes.starts(with: "//".utf8) { return index + 2 }
        guard let first = bytes.first, isLetter(first) else { return nil }
        index += 1
        while index < bytes.endIndex, isSchemeCharacter(bytes[index]) { index += 1 }
        return bytes[index...].starts(with: "://".utf8) ? index + 3 : nil
    }

    /// Appends `name=value`, the value redacted when the name is sensitive and the value not empty.
    private func appendParameter(_ parameter: ArraySlice<UInt8>, to out: inout [UInt8]) {
        guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")), equals + 1 < parameter.endIndex,
              isSensitiveQueryName(parameter[..<equals])
        else {
            out.append(contentsOf: parameter)
            return
        }
        out.append(contentsOf: parameter[...equals])
        out.append(contentsOf: Self.placeholder.utf8)
    }

    /// Whether the percent-decoded, lowercased `name` is in ``sensitiveQueryNames``.
    private func isSensitiveQueryName(_ name: ArraySlice<UInt8>) -> Bool {
        guard name.count <= 64 else { return false }  // longer than any name worth listing
        return sensitiveQueryNames.contains(Self.lowercased(Self.percentDecoded(name)))
    }

    private static func isParameterSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    // MARK: Header lines

    /// A header line with its value replaced by ``placeholder`` when its name is sensitive, or
    /// redacted as a URL when it holds one (`Location`); a request line's target
    /// (`GET /path?token=x HTTP/1.1`) redacted as a URL. Trailing CR and LF are dropped.
    func headerLine(_ line: some StringProtocol) -> String {
        var out: [UInt8] = []
        appendHeaderLine(Self.withoutLineEnd(Array(line.utf8)[...]), to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the redacted form of one header line, without its line end (see
    /// ``headerLine(_:)``), to `out`.
    func appendHeaderLine(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        guard !revealsSecrets else { return out.append(contentsOf: bytes) }
        out.reserveCapacity(out.count + bytes.count)
        if let (name, colon) = Self.headerName(bytes) {
            let value = bytes[(colon + 1)...].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if !value.isEmpty, sensitiveHeaderNames.contains(name) {
                out.append(contentsOf: bytes[...colon])
                out.append(contentsOf: " \(Self.placeholder)".utf8)
            } else if !value.isEmpty, Self.urlHeaderNames.contains(name) {
                out.append(contentsOf: bytes[..<value.startIndex])
                appendURL(value, to: &out)
            } else {
                out.append(contentsOf: bytes)
            }
            return
        }
        // A request line (`METHOD target VERSION`) or a status line (`HTTP/1.1 200 OK`).
        guard let firstSpace = bytes.firstIndex(of: UInt8(ascii: " ")) else {
            out.append(contentsOf: bytes)
            return
        }
        let targetEnd = bytes[(firstSpace + 1)...].firstIndex(of: UInt8(ascii: " ")) ?? bytes.endIndex
        out.append(contentsOf: bytes[...firstSpace])
        appendURL(bytes[(firstSpace + 1)..<targetEnd], to: &out)
        out.append(contentsOf: bytes[targetEnd...])
    }

    /// The lowercased name and the index of the colon ending it, when `bytes` is `name: value`
    /// (a token, or a `:pseudo` name, then a colon).
    private static func headerName(_ bytes: ArraySlice<UInt8>) -> (String, Int)? {
        let nameStart = bytes.first == UInt8(ascii: ":") ? bytes.startIndex + 1 : bytes.startIndex
        guard let colon = bytes[nameStart...].firstIndex(of: UInt8(ascii: ":")), colon > nameStart,
              bytes[nameStart..<colon].allSatisfy(isTokenCharacter)
        else { return nil }
        return (lowercased(bytes[bytes.startIndex..<colon]), colon)
    }

    // MARK: Free text

    /// `text` with every known secret replaced by ``placeholder``.
    func values(in text: some StringProtocol) -> String {
        guard !revealsSecrets, !secrets.isEmpty else { return String(text) }
        var out: [UInt8] = []
        appendValues(Array(text.utf8)[...], to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `bytes` with every known secret replaced by ``placeholder`` to `out`.
    func appendValues(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        guard !revealsSecrets, !secrets.isEmpty else { return out.append(contentsOf: bytes) }
        out.reserveCapacity(out.count + bytes.count)
        var index = bytes.startIndex
        scan: while index < bytes.endIndex {
            let byte = bytes[index]
            if secretStarts[Int(byte)] {
                for secret in secrets where bytes[index...].starts(with: secret) {
                    out.append(contentsOf: Self.placeholder.utf8)
                    index += secret.count
                    continue scan
                }
            }
            out.append(byte)
            index += 1
        }
    }

    /// A line of curl's informational text (`CURLINFO_TEXT`) with its secrets redacted: the
    /// header curl echoes in brackets (`h2h3 [authorization: Bearer …]`, `[HTTP/2] [1] [cookie: …]`)
    /// as a header line, the value of a cookie it stored (`Added cookie name="value" for domain …`),
    /// and every known secret. Trailing CR and LF are dropped.
    func curlText(_ text: some StringProtocol) -> String {
        var structural: [UInt8] = [], out: [UInt8] = []
        appendCurlText(Self.withoutLineEnd(Array(text.utf8)[...]), to: &structural)
        appendValues(structural[...], to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends one line of curl's text with its bracketed headers and cookie values redacted
    /// (see ``curlText(_:)``; known secrets are left to ``appendValues(_:to:)``) to `out`.
    func appendCurlText(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        guard !revealsSecrets else { return out.append(contentsOf: bytes) }
        out.reserveCapacity(out.count + bytes.count)
        if !Self.appendCookieMessage(bytes, to: &out) {
            appendBracketedHeaders(bytes, to: &out)
        }
    }

    /// `bytes` without trailing CR and LF.
    static func withoutLineEnd(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var bytes = bytes
        while let last = bytes.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") { bytes.removeLast() }
        return bytes
    }

    /// Appends `bytes` with each `[name: value]` group redacted as a header line. A sensitive
    /// value is redacted up to the line's last `]`, in case the value itself holds one.
    private func appendBracketedHeaders(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        var index = bytes.startIndex
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "[")) {
            out.append(contentsOf: bytes[index...open])
            let inner = bytes[(open + 1)...]
            guard let close = inner.firstIndex(of: UInt8(ascii: "]")) else {
                index = open + 1
                break
            }
            guard let (name, _) = Self.headerName(inner[..<close]) else {
                out.append(contentsOf: inner[..<close])
                index = close
                continue
            }
            if sensitiveHeaderNames.contains(name), let lastClose = inner.lastIndex(of: UInt8(ascii: "]")) {
                appendHeaderLine(inner[..<lastClose], to: &out)
                index = lastClose
            } else {
                appendHeaderLine(inner[..<close], to: &out)
                index = close
            }
        }
        out.append(contentsOf: bytes[index...])
    }

    /// Appends curl's cookie-engine message (`Added cookie name="value" for domain d, path p,
    /// expire e`, or `Replaced cookie …`) with the value redacted, and returns `true`; returns
    /// `false` (appending nothing) for any other text.
    private static func appendCookieMessage(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) -> Bool {
        guard bytes.starts(with: "Added cookie ".utf8) || bytes.starts(with: "Replaced cookie ".utf8),
              let valueStart = firstRange(of: Array("=\"".utf8), in: bytes)?.upperBound,
              let valueEnd = lastRange(of: Array("\" for domain ".utf8), in: bytes)?.lowerBound,
              valueStart <= valueEnd
        else { return false }
        out.append(contentsOf: bytes[..<valueStart])
        if valueStart < valueEnd { out.append(contentsOf: placeholder.utf8) }
        out.append(contentsOf: bytes[valueEnd...])
        return true
    }

    // MARK: Bytes

    private static func firstRange(of pattern: [UInt8], in bytes: ArraySlice<UInt8>) -> Range<Int>? {
        guard pattern.count <= bytes.count else { return nil }
        for start in bytes.startIndex...(bytes.endIndex - pattern.count) where bytes[start...].starts(with: pattern) {
            return start..<(start + pattern.count)
        }
        return nil
    }

    private static func lastRange(of pattern: [UInt8], in bytes: ArraySlice<UInt8>) -> Range<Int>? {
        guard pattern.count <= bytes.count else { return nil }
        for start in stride(from: bytes.endIndex - pattern.count, through: bytes.startIndex, by: -1)
        where bytes[start...].starts(with: pattern) {
            return start..<(start + pattern.count)
        }
        return nil
    }

    /// `bytes` with `%XX` escapes decoded (malformed escapes kept as they are).
    static func percentDecoded(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            let high = iterator.next(), low = high == nil ? nil : iterator.next()
            if let high, let low, let h = hexValue(high), let l = hexValue(low) {
                out.append(h << 4 | l)
            } else {
                out.append(byte)
                if let high { out.append(high) }
                if let low { out.append(low) }
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `bytes` as a String with ASCII letters lowercased.
    static func lowercased(_ bytes: some Sequence<UInt8>) -> String {
        String(decoding: bytes.map(asciiLowercased), as: UTF8.self)
    }

    /// `byte`, lowercased when it is an ASCII capital letter.
    static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isSchemeCharacter(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// RFC 9110 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
