#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One or more X.509 certificates in PEM form (`-----BEGIN CERTIFICATE-----` blocks), checked when
/// made: a CA bundle to trust, or the certificates to pin.
public struct CertificateBundle: Sendable, Hashable {
    /// The PEM text, as given.
    public let pem: String
    /// How many certificates the text holds.
    public let count: Int

    /// A bundle from PEM text.
    ///
    /// - Throws: ``RequestError/Code/tlsFailure`` when the text holds no complete
    ///   `BEGIN CERTIFICATE`/`END CERTIFICATE` block, or unbalanced ones.
    public init(pem: String) throws(RequestError) {
        let begins = pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").count - 1
        let ends = pem.components(separatedBy: "-----END CERTIFICATE-----").count - 1
        guard begins > 0, begins == ends else {
            throw RequestError(
                .tlsFailure,
                "the PEM text holds \(begins) BEGIN CERTIFICATE and \(ends) END CERTIFICATE lines; a certificate bundle needs matching, non-zero counts")
        }
        self.pem = pem
        self.count = begins
    }

    /// A bundle from PEM bytes (UTF-8 or ASCII).
    ///
    /// - Throws: ``RequestError/Code/tlsFailure`` as ``init(pem:)``.
    public init(pemData: Data) throws(RequestError) {
        try self.init(pem: String(decoding: pemData, as: UTF8.self))
    }

    /// A bundle read now from a PEM file (such as a `.crt` or `.pem` CA file).
    ///
    /// - Throws: ``RequestError/Code/fileIO`` when the file cannot be read;
    ///   ``RequestError/Code/tlsFailure`` as ``init(pem:)``.
    public init(pemFile: URL) throws(RequestError) {
        try self.init(pemData: try Self.read(pemFile))
    }

    /// The bundles' certificates together.
    public static func + (lhs: CertificateBundle, rhs: CertificateBundle) -> CertificateBundle {
        CertificateBundle(joining: lhs.pem, rhs.pem, count: lhs.count + rhs.count)
    }

    private init(joining first: String, _ second: String, count: Int) {
        self.pem = first.hasSuffix("\n") ? first + second : first + "\n" + second
        self.count = count
    }

    /// The contents of `file`, or a ``RequestError/Code/fileIO`` error naming it.
    static func read(_ file: URL) throws(RequestError) -> Data {
        do {
            return try Data(contentsOf: file)
        } catch {
            throw RequestError(.fileIO, "cannot read \(file.path.debugDescription): \(error.fileErrorText)", underlying: error)
        }
    }
}
