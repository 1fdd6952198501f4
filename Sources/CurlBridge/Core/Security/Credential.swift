#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A secret that proves who the client is to a server: Basic or Bearer (sent by CurlBridge as an
/// `Authorization` header) or a user name and password that libcurl answers a server's challenge
/// with (Digest, NTLM).
///
/// Attach one to a request with ``Request/credential(_:)`` (or ``Request/basicAuth(username:password:)``,
/// ``Request/bearerToken(_:)``), or to every request to one origin with
/// ``Configuration/credentials``. Requests carrying a credential to an `http://` URL of a host
/// other than this machine's loopback are refused unless ``Request/allowingCredentialsOverPlainHTTP(_:)``
/// or ``Configuration/allowsCredentialsOverPlainHTTP`` allows it.
///
/// (``RefreshableCredential`` is another thing: a token an ``AuthenticationInterceptor`` refreshes,
/// which usually applies itself *as* one of these.)
///
/// The description and the mirror of a credential never show its password or token.
public struct Credential: Sendable, Hashable {
    /// What the credential is.
    enum Kind: Sendable, Hashable {
        /// `Authorization: Basic base64(username:password)`, sent with the first request.
        case basic(username: String, password: String)
        /// `Authorization: Bearer token`, sent with the first request.
        case bearer(token: String)
        /// A user name and password that libcurl sends once the server names a scheme it accepts.
        case challenged(username: String, password: String, schemes: Schemes)
    }

    let kind: Kind

    /// HTTP Basic (RFC 7617): the user name and password, UTF-8 and base64-encoded, sent with the
    /// first request — AFNetworking's `setAuthorizationHeaderFieldWithUsername:password:`.
    ///
    /// A user name containing `:` cannot be sent (the server could not split it) and is reported
    /// at send time as ``RequestError/Code/invalidHeader``.
    public static func basic(username: String, password: String) -> Credential {
        Credential(kind: .basic(username: username, password: password))
    }

    /// A bearer token (RFC 6750), sent as `Authorization: Bearer <token>` with the first request.
    ///
    /// A token containing CR, LF or NUL is reported at send time as ``RequestError/Code/invalidHeader``.
    public static func bearer(_ token: String) -> Credential {
        Credential(kind: .bearer(token: token))
    }

    /// HTTP Digest (RFC 7616, MD5 or SHA-256 as the server asks): libcurl sends the request, reads
    /// the server's `401` challenge and sends it again with the answer — so the body is sent twice
    /// and must be rewindable (bytes, a file, a form; a one-shot stream fails with
    /// ``RequestError/Code/bodyNotRewindable``).
    public static func digest(username: String, password: String) -> Credential {
        .challenged(username: username, password: password, schemes: .digest)
    }

    /// NTLM, answered by libcurl in its three-message handshake on one connection (the body is
    /// sent once the handshake is done, after an empty probe). `username` may be `DOMAIN\\user`.
    public static func ntlm(username: String, password: String) -> Credential {
        .challenged(username: username, password: password, schemes: .ntlm)
    }

    /// A user name and password that libcurl sends with the safest of `schemes` that the server's
    /// challenge offers (`CURLOPT_HTTPAUTH`); the first request goes without credentials unless
    /// `schemes` is just ``Schemes/basic``.
    public static func challenged(username: String, password: String, schemes: Schemes) -> Credential {
        Credential(kind: .challenged(username: username, password: password, schemes: schemes))
    }

    /// Authentication schemes libcurl may answer a challenge with.
    ///
    /// Negotiate (Kerberos/SPNEGO) and curl's `NTLM_WB` (which runs an external `ntlm_auth`
    /// program) are deliberately not offered.
    public struct Schemes: OptionSet, Sendable, Hashable {
        /// The set's bits: one per scheme.
        public let rawValue: Int
        /// Creates a set of schemes from its raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// HTTP Basic: the password travels base64-encoded, readable by anyone on the path.
        public static let basic = Schemes(rawValue: 1 << 0)
        /// HTTP Digest (RFC 7616).
        public static let digest = Schemes(rawValue: 1 << 1)
        /// NTLM.
        public static let ntlm = Schemes(rawValue: 1 << 2)
        /// Every scheme above: libcurl picks the safest one the server offers (like `--anyauth`).
        public static let any: Schemes = [.basic, .digest, .ntlm]
        /// Every scheme except Basic, so the password never travels readable.
        public static let anySafe: Schemes = [.digest, .ntlm]
    }
}

extension Credential: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The kind and user name; the password or token reads `<redacted>`.
    public var description: String {
        switch kind {
        case .basic(let username, _): "Credential.basic(username: \(username.debugDescription), password: <redacted>)"
        case .bearer: "Credential.bearer(<redacted>)"
        case .challenged(let username, _, let schemes):
            "Credential.challenged(username: \(username.debugDescription), password: <redacted>, schemes: \(schemes.rawValue))"
        }
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the secret, so `dump(request)` does not print it.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
