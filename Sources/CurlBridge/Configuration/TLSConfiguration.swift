import Foundation

/// How a transport verifies the servers it talks to over TLS.
public struct TLSConfiguration: Sendable, Hashable {
    /// PEM-encoded CA certificates to trust *instead of* the system store; `nil` (the default)
    /// uses the system's CA bundle. Passed to libcurl in memory (`CURLOPT_CAINFO_BLOB`).
    public var trustedCertificatesPEM: String?
    /// Whether to verify the server's certificate chain and host name; `true` by default.
    /// Turning it off makes TLS useless against an active attacker: tests and debugging only.
    public var verifiesPeer: Bool

    /// Creates a TLS configuration.
    ///
    /// - Parameters:
    ///   - trustedCertificatesPEM: CA certificates to trust instead of the system store; `nil` by default.
    ///   - verifiesPeer: Whether to verify certificate and host name; `true` by default.
    public init(trustedCertificatesPEM: String? = nil, verifiesPeer: Bool = true) {
        self.trustedCertificatesPEM = trustedCertificatesPEM
        self.verifiesPeer = verifiesPeer
    }
}
