/// The certificate authorities a server's certificate chain must lead to.
///
/// - ``system``: the operating system's CA store (as libcurl was built to find it, e.g.
///   `/etc/ssl/certs` on Debian). NSURLSession's and AFSecurityPolicy's default.
/// - ``systemAdding(_:)``: the system store plus your own CAs — a corporate or private CA next to
///   the public web.
/// - ``replacingSystem(with:)``: only your own CAs; a certificate from a public CA is refused.
///   AFSecurityPolicy has no such mode (it pins instead); this is `SecTrustSetAnchorCertificatesOnly`.
public struct TrustRoots: Sendable, Hashable {
    /// The certificates given, if any.
    let certificates: CertificateBundle?
    /// Whether the system store is trusted too.
    let includesSystem: Bool

    /// The system's CA store only (the default).
    public static let system = TrustRoots(certificates: nil, includesSystem: true)

    /// The system's CA store and `certificates`.
    public static func systemAdding(_ certificates: CertificateBundle) -> TrustRoots {
        TrustRoots(certificates: certificates, includesSystem: true)
    }

    /// Only `certificates`: the system's CA store is not consulted.
    public static func replacingSystem(with certificates: CertificateBundle) -> TrustRoots {
        TrustRoots(certificates: certificates, includesSystem: false)
    }
}
