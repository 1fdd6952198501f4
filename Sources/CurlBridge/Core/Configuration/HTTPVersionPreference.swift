/// Which HTTP version a transport asks for.
public struct HTTPVersionPreference: Sendable, Hashable, CustomStringConvertible {
    let curlValue: Int
    /// A short name, e.g. `"http2OverTLS"`.
    public let description: String

    /// HTTP/1.1 only.
    public static let http1_1 = HTTPVersionPreference(curlValue: 2, description: "http1_1")
    /// HTTP/2 over TLS when the server offers it through ALPN, HTTP/1.1 otherwise (the default).
    /// Cleartext HTTP/2 (h2c) is not offered: libcurl 7.88 cannot reuse such connections.
    public static let http2OverTLS = HTTPVersionPreference(curlValue: 4, description: "http2OverTLS")
}
