/// A TLS protocol version, as a lower bound for ``TLSConfiguration/minimumVersion``.
public struct TLSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// `CURLOPT_SSLVERSION`'s value for "this version or later".
    let curlValue: Int
    /// `"TLS 1.2"` or `"TLS 1.3"`.
    public let description: String

    /// TLS 1.2 (RFC 5246), the default minimum.
    public static let tls1_2 = TLSVersion(curlValue: 6, description: "TLS 1.2")  // CURL_SSLVERSION_TLSv1_2
    /// TLS 1.3 (RFC 8446).
    public static let tls1_3 = TLSVersion(curlValue: 7, description: "TLS 1.3")  // CURL_SSLVERSION_TLSv1_3

    /// Whether `lhs` is an older version than `rhs`.
    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.curlValue < rhs.curlValue }
}
