import NIOHTTP2
import NIOSSL

/// A TLS listener that presents one particular certificate or policy, for testing how clients
/// verify servers (see ``TestServer/startTLSListener(_:)``). Each answers the usual routes once
/// the handshake succeeds, over HTTP/2 or HTTP/1.1.
public enum TLSScenario: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The normal server certificate (as on ``TestServer/httpsPort``), signed by the test CA.
    case trusted
    /// A certificate signed by the test CA that expired on 2021-01-01.
    case expired
    /// A certificate signed by the test CA for `other.invalid` only.
    case wrongHost
    /// A self-signed certificate for `127.0.0.1` and `localhost`.
    case selfSigned
    /// A certificate for `127.0.0.1` and `localhost` signed by ``TestServer/unknownCertificateAuthorityPEM``.
    case unknownAuthority
    /// The normal certificate, speaking TLS 1.2 at most.
    case tls12Only
    /// The normal certificate, requiring a client certificate signed by the test CA
    /// (``TestServer/clientCertificatePEM``) and refusing the handshake without one.
    case mutualTLS

    /// The raw value, e.g. `"wrongHost"`.
    public var description: String { rawValue }

    /// The server TLS context of this scenario.
    func makeContext() throws -> NIOSSLContext {
        let (certificatePEM, keyPEM): (String, String)
        switch self {
        case .trusted, .tls12Only, .mutualTLS:
            (certificatePEM, keyPEM) = (TestCertificates.serverCertificate, TestCertificates.serverPrivateKey)
        case .expired:
            (certificatePEM, keyPEM) = (TestCertificates.expiredCertificate, TestCertificates.expiredPrivateKey)
        case .wrongHost:
            (certificatePEM, keyPEM) = (TestCertificates.wrongHostCertificate, TestCertificates.wrongHostPrivateKey)
        case .selfSigned:
            (certificatePEM, keyPEM) = (TestCertificates.selfSignedCertificate, TestCertificates.selfSignedPrivateKey)
        case .unknownAuthority:
            (certificatePEM, keyPEM) = (
                TestCertificates.unknownAuthorityServerCertificate, TestCertificates.unknownAuthorityServerPrivateKey
            )
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem))
        )
        configuration.applicationProtocols = NIOHTTP2SupportedALPNProtocols
        switch self {
        case .tls12Only:
            configuration.maximumTLSVersion = .tlsv12
        case .mutualTLS:
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([
                try NIOSSLCertificate(bytes: Array(TestCertificates.certificateAuthority.utf8), format: .pem)
            ])
        default:
            break
        }
        return try NIOSSLContext(configuration: configuration)
    }
}
