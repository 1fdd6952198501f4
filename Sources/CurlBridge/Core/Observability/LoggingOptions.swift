/// What the transport's ``Configuration/logger`` (or a request's own ``Request/logger``) may see.
/// Secrets are redacted by default; the one option that reveals them is named for debugging and
/// off unless you turn it on.
///
/// At `debug` level the transport logs each attempt (start, outcome, retries, redirects,
/// completion) with metadata; at `trace` level, also curl's own verbose output
/// (`CURLOPT_DEBUGFUNCTION`: connection steps, request and response headers; never bodies, only
/// their sizes). Above `debug` (the default logger is at `info`) nothing is logged per request and
/// curl's verbose mode stays off. Redacted everywhere, unless ``revealsSecretsForDebugging``:
/// - the values of `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and of headers
///   marked ``Request/header(_:_:sensitive:forwardable:)`` sensitive, as `<redacted>`;
/// - user info in URLs (`https://user:password@host/` is logged as `https://host/`);
/// - the values of query parameters named in ``sensitiveQueryNames``;
/// - the request's known secrets — a ``Credential``'s user name, password or token, URL user
///   info, proxy credentials, sensitive header and query values, cookie values curl reports —
///   wherever curl's text mentions them. Secrets shorter than 3 characters are left alone there,
///   so that they do not shred the text.
public struct LoggingOptions: Sendable, Hashable {
    /// Query parameter names whose values are redacted from logged URLs, compared without regard
    /// to case; ``standardSensitiveQueryNames`` by default.
    public var sensitiveQueryNames: Set<String> {
        didSet { lowercasedQueryNames = Self.lowercased(sensitiveQueryNames) }
    }
    /// Logs sensitive header values, user info and sensitive query values as they are. For
    /// debugging only, never in production; `false` by default.
    public var revealsSecretsForDebugging: Bool
    /// ``sensitiveQueryNames`` in ASCII lowercase, computed once rather than for every URL logged.
    private(set) var lowercasedQueryNames: Set<String>

    /// Creates options; every parameter has the default documented on its property.
    public init(
        sensitiveQueryNames: Set<String> = LoggingOptions.standardSensitiveQueryNames,
        revealsSecretsForDebugging: Bool = false
    ) {
        self.sensitiveQueryNames = sensitiveQueryNames
        self.revealsSecretsForDebugging = revealsSecretsForDebugging
        lowercasedQueryNames = Self.lowercased(sensitiveQueryNames)
    }

    /// Names that commonly carry secrets: `token`, `access_token`, `api_key`, `password`,
    /// `signature`, AWS's `X-Amz-Signature` and so on.
    public static let standardSensitiveQueryNames: Set<String> = [
        "token", "access_token", "refresh_token", "id_token", "auth", "authorization", "key", "api_key", "apikey",
        "secret", "client_secret", "password", "passwd", "pwd", "sig", "signature", "code", "session", "sessionid",
        "x-amz-signature", "x-amz-credential", "x-amz-security-token",
    ]

    private static func lowercased(_ names: Set<String>) -> Set<String> {
        Set(names.map { String(decoding: $0.utf8.map(LogRedactor.asciiLowercased), as: UTF8.self) })
    }
}
