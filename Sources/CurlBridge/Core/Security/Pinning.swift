#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a pinned host's certificate chain must contain, beyond being trusted — AFSecurityPolicy's
/// `AFSSLPinningModePublicKey` and `AFSSLPinningModeCertificate`, for one host (see
/// ``TLSConfiguration/pins``).
///
/// - ``publicKeys(_:)``: the server's own key must be one of the pinned keys (curl's
///   `CURLOPT_PINNEDPUBLICKEY`). List a backup key next to the current one, so a key rotation
///   does not lock the clients out.
/// - ``certificates(_:)``: the pinned certificates become the host's only trust anchors, so the
///   server's leaf, or a certificate in its chain, must be one of them (a pinned CA pins every
///   leaf it signed). The chain must still be valid and name the host.
///
/// Either failure is ``RequestError/Code/pinningMismatch``, reported right after the TLS
/// handshake: not one byte of the request is sent to the server.
public struct Pinning: Sendable, Hashable {
    /// The accepted keys, each `sha256//` and the base64 SHA-256 of a DER SubjectPublicKeyInfo.
    public let publicKeyHashes: [String]
    /// The pinned certificates, if the pin is by certificate.
    public let certificates: CertificateBundle?

    /// Pins the server's public key to one of `hashes`: each the base64 SHA-256 digest of a DER
    /// SubjectPublicKeyInfo (the HPKP and `curl --pinnedpubkey` form), with or without a
    /// `sha256//` prefix. Make one with
    /// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
    ///
    /// - Throws: ``RequestError/Code/tlsFailure`` when `hashes` is empty or one is not the base64
    ///   of 32 bytes.
    public static func publicKeys(_ hashes: [String]) throws(RequestError) -> Pinning {
        guard !hashes.isEmpty else { throw RequestError(.tlsFailure, "a public-key pin needs at least one key hash") }
        var normalized: [String] = []
        for hash in hashes {
            let base64 = hash.hasPrefix("sha256//") ? String(hash.dropFirst(8)) : hash
            guard Data(base64Encoded: base64)?.count == 32 else {
                throw RequestError(.tlsFailure, "\(hash.debugDescription) is not a base64 SHA-256 digest (32 bytes)")
            }
            normalized.append("sha256//" + base64)
        }
        return Pinning(publicKeyHashes: normalized, certificates: nil)
    }

    /// Pins the host to `certificates`: its chain must lead to one of them (leaf, intermediate or
    /// root), and to nothing else.
    public static func certificates(_ certificates: CertificateBundle) -> Pinning {
        Pinning(publicKeyHashes: [], certificates: certificates)
    }
}
