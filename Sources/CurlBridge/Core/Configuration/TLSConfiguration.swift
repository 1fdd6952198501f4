#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a transport sets up TLS: which certificate authorities it trusts, which TLS versions it
/// accepts, which certificate it presents for mutual TLS, and which hosts are pinned — the job of
/// AFNetworking's `AFSecurityPolicy` and of `URLSessionDelegate`'s server-trust challenge.
///
/// The default verifies every server against the system's CA store, checks the host name, and
/// refuses TLS below 1.2.
///
/// ```swift
/// var tls = TLSConfiguration(trustRoots: .systemAdding(try CertificateBundle(pemFile: corporateCA)))
/// tls.pins["api.example.com"] = try .publicKeys(["sha256//current…=", "sha256//backup…="])
/// let transport = Transport(configuration: .init(tls: tls))
/// ```
public struct TLSConfiguration: Sendable, Hashable {
    /// The certificate authorities a server's chain must lead to; ``TrustRoots/system`` by default.
    public var trustRoots: TrustRoots
    /// The lowest TLS version accepted; ``TLSVersion/tls1_2`` by default.
    public var minimumVersion: TLSVersion
    /// The certificate and key presented when a server asks for one (mutual TLS); `nil` by default.
    public var clientIdentity: ClientIdentity?
    /// Pins by host name: a request to a host listed here must meet its ``Pinning``, while other
    /// hosts are verified by ``trustRoots`` alone. Empty by default.
    ///
    /// Keys are host names as in the URL (ASCII; an internationalized name in its `xn--` form),
    /// compared case-insensitively, or `*.example.com` for every host under `example.com` (not
    /// `example.com` itself), or `*` for every host no other key matches — every host a redirect
    /// may reach. An exact name wins over a wildcard, a longer wildcard over a shorter, any of
    /// them over `*`. One request can carry pins of its own with ``Request/pinning(_:)``.
    /// IP addresses are written as in the URL without brackets (`127.0.0.1`, `::1`). `localhost`
    /// and `127.0.0.1` are different hosts.
    public var pins: [String: Pinning]
    /// Whether to skip verifying the server's certificate chain and host name; `false` by default.
    ///
    /// With this on, TLS protects against nothing but passive eavesdropping: anyone on the path
    /// can impersonate any server. Meant for tests and debugging only. Public-key pins still apply
    /// (a self-signed server with a pinned key stays safe); a host with certificate pins is still
    /// verified against its pinned certificates.
    public var disablesCertificateVerification: Bool
    /// A CA bundle file standing for the system's in ``TrustRoots/system`` and
    /// ``TrustRoots/systemAdding(_:)``; `nil`, the default, is the system's own. Tests point it at
    /// a bundle of their own.
    var systemBundleOverride: String?

    /// Creates a TLS configuration; every parameter has the default documented on its property.
    public init(
        trustRoots: TrustRoots = .system,
        minimumVersion: TLSVersion = .tls1_2,
        clientIdentity: ClientIdentity? = nil,
        pins: [String: Pinning] = [:],
        disablesCertificateVerification: Bool = false
    ) {
        self.trustRoots = trustRoots
        self.minimumVersion = minimumVersion
        self.clientIdentity = clientIdentity
        self.pins = pins
        self.disablesCertificateVerification = disablesCertificateVerification
    }

    /// A configuration that verifies nothing: no certificate chain, no host name (see
    /// ``disablesCertificateVerification``). For tests and debugging only.
    public static var insecureNoVerification: TLSConfiguration {
        TLSConfiguration(disablesCertificateVerification: true)
    }
}
