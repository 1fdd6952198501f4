/// What the transport's ``Configuration/logger`` may see. Secrets are redacted by default; each
/// option that reveals one is named for debugging and off unless you turn it on.
///
/// At `debug` level the transport logs each attempt (start, outcome, retries, redirects) with
/// metadata; at `trace` level, curl's own verbose output (`CURLOPT_DEBUGFUNCTION`: connection
/// steps, request and response headers; never bodies). Redacted everywhere: the values of
/// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and headers marked
/// ``Request/header(_:_:sensitive:forwardable:)`` sensitive; user info in URLs; the values of
/// query parameters named in ``sensitiveQueryNames``; and any credential's user name or password
/// wherever curl's text mentions it.
public struct LoggingOptions: Sendable, Hashable {
    /// Query parameter names whose values are redacted from logged URLs, compared without regard
    /// to case; ``standardSensitiveQueryNames`` by default.
    public var sensitiveQueryNames: Set<String>
    /// Logs sensitive header values, user info and sensitive query values as they are. For
    /// debugging only, never in production; `false` by default.
    public var revealsSecretsForDebugging: Bool

    /// Creates options; every parameter has the default documented on its property.
    public init(
        sensitiveQueryNames: Set<String> = LoggingOptions.standardSensitiveQueryNames,
        revealsSecretsForDebugging: Bool = false
    ) {
        self.sensitiveQueryNames = sensitiveQueryNames
        self.revealsSecretsForDebugging = revealsSecretsForDebugging
    }

    /// Names that commonly carry secrets: `token`, `access_token`, `api_key`, `password`,
    /// `signature`, AWS's `X-Amz-Signature` and so on.
    public static let standardSensitiveQueryNames: Set<String> = [
        "token", "access_token", "refresh_token", "id_token", "auth", "authorization", "key", "api_key", "apikey",
        "secret", "client_secret", "password", "passwd", "pwd", "sig", "signature", "code", "session", "sessionid",
        "x-amz-signature", "x-amz-credential", "x-amz-security-token",
    ]
}
