/// Finding the secret strings of a request, for ``LogRedactor`` to take out of curl's text.
enum LogSecrets {
    /// The secrets in a sensitive header's value: the whole value, what follows an
    /// authentication scheme (`Basic <this>`), and each cookie's value (`a=<this>; b=<this>`).
    static func inHeaderValue(_ value: Substring) -> [String] {
        guard let value = trimmed(value) else { return [] }
        var secrets = [String(value)]
        if let space = value.firstIndex(of: " ") { secrets.append(String(value[value.index(after: space)...])) }
        for pair in value.split(separator: ";") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            secrets.append(String(pair[pair.index(after: equals)...]))
        }
        return secrets
    }

    /// The user name and password (as written, percent-encoded) in the authority of `url`, if
    /// it has user info.
    static func userInfo(in url: String) -> [String] {
        let bytes = Array(url.utf8)
        guard let schemeEnd = (0..<max(0, bytes.count - 2)).first(where: { bytes[$0...].starts(with: "://".utf8) }) else { return [] }
        let authority = bytes[(schemeEnd + 3)...].prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        guard let at = authority.lastIndex(of: UInt8(ascii: "@")) else { return [] }
        return authority[..<at].split(separator: UInt8(ascii: ":"), maxSplits: 1).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `secrets`, each with its percent-decoded forms (`+` kept, and `+` read as a space) added.
    static func withDecodedForms(_ secrets: [String]) -> [String] {
        var all = secrets
        for secret in secrets where secret.utf8.contains(UInt8(ascii: "%")) || secret.utf8.contains(UInt8(ascii: "+")) {
            all.append(String(decoding: LogRedactor.percentDecoded(secret.utf8), as: UTF8.self))
            let spaced = secret.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }
            all.append(String(decoding: LogRedactor.percentDecoded(spaced), as: UTF8.self))
        }
        return all
    }

    /// `text` without leading and trailing spaces and tabs, `nil` when that leaves nothing.
    private static func trimmed(_ text: Substring) -> Substring? {
        let isBlank = { (character: Character) in character == " " || character == "\t" }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) }) else {
            return nil
        }
        return text[first...last]
    }
}

extension Credential {
    /// The user name and password, or the token.
    var secrets: [String] {
        switch kind {
        case .basic(let username, let password), .challenged(let username, let password, _): [username, password]
        case .bearer(let token): [token]
        }
    }
}

extension LogRedactor {
    /// The values (as written, percent-encoded) of the sensitive query and fragment parameters
    /// of `url`.
    func sensitiveQueryValues(in url: String) -> [String] {
        let bytes = Array(url.utf8)
        guard let start = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return [] }
        return bytes[(start + 1)...]
            .split { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            .compactMap { parameter in
                guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")),
                      sensitiveQueryNames.contains(Self.lowercased(Self.percentDecoded(parameter[..<equals])))
                else { return nil }
                return String(decoding: parameter[(equals + 1)...], as: UTF8.self)
            }
    }
}
