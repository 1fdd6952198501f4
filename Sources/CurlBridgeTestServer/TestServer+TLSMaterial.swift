import Foundation

/// The certificates, keys and pins that tests of TLS verification, pinning and mutual TLS use with
/// ``TLSScenario`` listeners (all made by `scripts/make-test-certificates.sh`).
extension TestServer {
    /// PEM of the normal server certificate (the leaf of ``httpsPort`` and of
    /// ``TLSScenario/trusted``), for pinning a leaf.
    public static let serverCertificatePEM: String = TestCertificates.serverCertificate

    /// PEM of a second CA, which signed the ``TLSScenario/unknownAuthority`` leaf and the
    /// stranger client certificate; trusted by nothing unless a test says so.
    public static let unknownCertificateAuthorityPEM: String = TestCertificates.unknownCertificateAuthority

    /// The pin (`sha256//…`) of the ``TLSScenario/unknownAuthority`` leaf's key.
    public static let unknownAuthorityServerPublicKeyPin: String = TestCertificates.unknownAuthorityServerPublicKeyPin

    /// PEM of a client certificate signed by the test CA: ``TLSScenario/mutualTLS`` accepts it.
    public static let clientCertificatePEM: String = TestCertificates.clientCertificate

    /// PEM (PKCS#8) of ``clientCertificatePEM``'s key.
    public static let clientPrivateKeyPEM: String = TestCertificates.clientPrivateKey

    /// ``clientCertificatePEM`` and its key as a PKCS#12 archive, protected by
    /// ``clientPKCS12Passphrase``.
    public static var clientPKCS12: Data { Data(base64Encoded: TestCertificates.clientPKCS12Base64) ?? Data() }

    /// The passphrase of ``clientPKCS12``.
    public static let clientPKCS12Passphrase: String = TestCertificates.clientPKCS12Passphrase

    /// PEM of a client certificate signed by the unknown CA: ``TLSScenario/mutualTLS`` refuses it.
    public static let strangerCertificatePEM: String = TestCertificates.strangerCertificate

    /// PEM (PKCS#8) of ``strangerCertificatePEM``'s key.
    public static let strangerPrivateKeyPEM: String = TestCertificates.strangerPrivateKey
}
