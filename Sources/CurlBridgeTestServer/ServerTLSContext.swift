import NIOCore
import NIOHTTP2
import NIOSSL

/// Builds the TLS context of the HTTPS listener: the embedded test server certificate and key,
/// offering ALPN `h2` and `http/1.1` so one port serves both protocols.
enum ServerTLSContext {
    /// Parses the embedded PEMs and returns a ready server context offering `applicationProtocols`
    /// through ALPN (`h2` and `http/1.1` unless given), whose handlers wait up to
    /// `shutdownTimeout` for the client's close_notify (and keep the connection's buffers that long).
    static func make(
        applicationProtocols: [String] = NIOHTTP2SupportedALPNProtocols, shutdownTimeout: TimeAmount = .seconds(5)
    ) throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(
            bytes: Array(TestCertificates.serverCertificate.utf8),
            format: .pem
        )
        let privateKey = try NIOSSLPrivateKey(
            bytes: Array(TestCertificates.serverPrivateKey.utf8),
            format: .pem
        )
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)],
            privateKey: .privateKey(privateKey)
        )
        configuration.applicationProtocols = applicationProtocols
        configuration.shutdownTimeout = shutdownTimeout
        return try NIOSSLContext(configuration: configuration)
    }
}
