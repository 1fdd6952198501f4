#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The certificate and private key a client presents when a server asks for one (mutual TLS) —
/// `URLCredential(identity:certificates:persistence:)` for an `NSURLAuthenticationMethodClientCertificate`
/// challenge. Given to curl in memory (`CURLOPT_SSLCERT_BLOB`, `CURLOPT_SSLKEY_BLOB`).
///
/// Its description never shows the key or the passphrase.
public struct ClientIdentity: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// How the certificate is encoded.
    enum Format: String, Sendable, Hashable {
        case pem = "PEM"
        case pkcs12 = "P12"
    }

    let format: Format
    /// The certificate (PEM, optionally followed by intermediates) or the whole PKCS#12 archive.
    let certificate: Data
    /// The PEM private key; `nil` for PKCS#12, which holds its own.
    let privateKey: Data?
    /// The passphrase of an encrypted key or of the PKCS#12 archive.
    let passphrase: String?

    /// A PEM certificate (optionally followed by its intermediates) and its PEM private key
    /// (PKCS#8, or traditional RSA/EC).
    ///
    /// - Parameters:
    ///   - certificate: The certificate in PEM, optionally followed by its intermediates.
    ///   - privateKey: The certificate's private key in PEM.
    ///   - passphrase: The key's passphrase if it is encrypted; `nil` by default.
    public static func pem(certificate: String, privateKey: String, passphrase: String? = nil) -> ClientIdentity {
        ClientIdentity(format: .pem, certificate: Data(certificate.utf8), privateKey: Data(privateKey.utf8), passphrase: passphrase)
    }

    /// A PEM certificate file and its PEM key file, read now.
    ///
    /// - Parameters:
    ///   - certificate: A PEM file with the certificate, optionally followed by its intermediates.
    ///   - privateKey: A PEM file with the certificate's private key.
    ///   - passphrase: The key's passphrase if it is encrypted; `nil` by default.
    /// - Throws: ``RequestError/Code/fileIO`` when a file cannot be read.
    public static func pemFiles(certificate: URL, privateKey: URL, passphrase: String? = nil) throws(RequestError) -> ClientIdentity {
        ClientIdentity(
            format: .pem, certificate: try CertificateBundle.read(certificate),
            privateKey: try CertificateBundle.read(privateKey), passphrase: passphrase)
    }

    /// A PKCS#12 (`.p12`, `.pfx`) archive holding the certificate and its key.
    ///
    /// - Parameters:
    ///   - archive: The archive's bytes.
    ///   - passphrase: The archive's passphrase; `nil` when it has none.
    public static func pkcs12(_ archive: Data, passphrase: String?) -> ClientIdentity {
        ClientIdentity(format: .pkcs12, certificate: archive, privateKey: nil, passphrase: passphrase)
    }

    /// A PKCS#12 file, read now.
    ///
    /// - Parameters:
    ///   - file: The `.p12` or `.pfx` file.
    ///   - passphrase: The archive's passphrase; `nil` when it has none.
    /// - Throws: ``RequestError/Code/fileIO`` when the file cannot be read.
    public static func pkcs12File(_ file: URL, passphrase: String?) throws(RequestError) -> ClientIdentity {
        .pkcs12(try CertificateBundle.read(file), passphrase: passphrase)
    }

    /// `ClientIdentity(PEM, <n> bytes)` or `ClientIdentity(P12, <n> bytes)`.
    public var description: String { "ClientIdentity(\(format.rawValue), \(certificate.count) bytes)" }

    /// Shows only ``description``, so `dump` prints neither key nor passphrase.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
