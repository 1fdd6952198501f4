#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A user name and password that the engine answers a server's challenge with (curl's
/// `CURLOPT_HTTPAUTH`, `CURLOPT_USERNAME` and `CURLOPT_PASSWORD`), over HTTP/1.1.
///
/// HTTP/1.1 because over HTTP/2 libcurl 7.88 sends its body-less probe request (the one that
/// draws the challenge) without ending the stream when the body comes from a read callback, and
/// the server waits for the rest forever (reproduced with the curl command-line tool: `-T file
/// --digest` or `--ntlm` against an HTTP/2 server hangs, `--http1.1` works); and NTLM
/// authenticates a whole connection, which HTTP/2's multiplexed streams do not fit (servers such
/// as IIS answer it with `HTTP_1_1_REQUIRED`).
///
/// A class, immutable: every prepared request carries an optional one, and an optional of a
/// class is copied as one reference where an optional of this struct went through its type's
/// metadata (issue 37).
final class ChallengeCredential: Sendable {
    let username: String
    let password: String
    let schemes: Credential.Schemes

    init(username: String, password: String, schemes: Credential.Schemes) {
        self.username = username
        self.password = password
        self.schemes = schemes
    }
}

/// What a request's credential adds to it once prepared.
struct PreparedAuthentication {
    /// The header lines to send: the request's, with the credential's `Authorization` in place
    /// of any other.
    var headerLines: [String]
    /// What libcurl answers challenges with, for Digest and NTLM.
    var challenge: ChallengeCredential?
}

extension Request {
    /// Applies the credential this request sends to `target` — its own, or else the
    /// configuration's for the URL's origin unless the request sets its own `Authorization` — to
    /// `headerLines`; refuses credentials of any kind (credential, `Authorization` header, user
    /// info in the URL) to an `http://` URL unless the configuration allows them. The resolved
    /// URL comes with what its check found in it (``PlainAbsoluteURL/hasUserInfo``), one value,
    /// so that no caller can pair a URL with another URL's verdict.
    func authentication(
        of headerLines: [String], target: PlainAbsoluteURL, defaults: RequestDefaults
    ) -> Result<PreparedAuthentication, RequestError> {
        let url = target.string
        var prepared = PreparedAuthentication(headerLines: headerLines, challenge: nil)
        let credential = self.credential ?? hostCredential(for: url, defaults: defaults)
        if let credential {
            prepared.headerLines.removeAll(where: Self.isAuthorizationLine)
            switch credential.kind {
            case .basic(let username, let password):
                if let problem = Self.problem(username: username, password: password, passwordTravels: true) ?? (
                    username.contains(":") ? "a Basic user name cannot contain \":\"" : nil) {
                    return .failure(RequestError(.invalidHeader, problem, method: method, url: url))
                }
                prepared.headerLines.append("Authorization: Basic " + Data("\(username):\(password)".utf8).base64EncodedString())
            case .bearer(let token):
                guard !token.containsHeaderBreakingCharacter, !token.isEmpty else {
                    return .failure(RequestError(.invalidHeader, "a bearer token cannot be empty or contain CR, LF or NUL", method: method, url: url))
                }
                prepared.headerLines.append("Authorization: Bearer " + token)
            case .challenged(let username, let password, let schemes):
                if let problem = Self.problem(username: username, password: password, passwordTravels: false) ?? (
                    schemes.isEmpty ? "a challenged credential needs at least one scheme" : nil) {
                    return .failure(RequestError(.invalidHeader, problem, method: method, url: url))
                }
                prepared.challenge = ChallengeCredential(username: username, password: password, schemes: schemes)
            }
        }
        if !target.usesTLS,
           credential != nil || prepared.headerLines.contains(where: Self.isAuthorizationLine) || target.hasUserInfo,
           !defaults.plainHTTPCredentials.permits(url, requestAllows: allowsCredentialsOverPlainHTTP) {
            return .failure(RequestError(
                .credentialsOverPlainHTTP,
                "credentials are not sent over plain http to a host other than this machine's loopback (allow it with "
                    + "Request.allowingCredentialsOverPlainHTTP() or Configuration.allowsCredentialsOverPlainHTTP)",
                method: method, url: url))
        }
        return .success(prepared)
    }

    /// The configuration's credential for the origin of `url`, unless this request sends its own
    /// `Authorization`.
    private func hostCredential(for url: String, defaults: RequestDefaults) -> Credential? {
        guard !defaults.credentials.isEmpty, !headerFields.contains(where: { $0.name == .authorization }),
              let origin = Credential.Origin(url)
        else { return nil }
        return defaults.credentials[origin]
    }

    /// Why a user name and password cannot be sent, or `nil`.
    private static func problem(username: String, password: String, passwordTravels: Bool) -> String? {
        if username.containsHeaderBreakingCharacter { return "a credential's user name cannot contain CR, LF or NUL" }
        if passwordTravels ? password.containsHeaderBreakingCharacter : password.contains("\0") {
            return "a credential's password cannot contain \(passwordTravels ? "CR, LF or NUL" : "NUL")"
        }
        return nil
    }

    /// Whether a curl header line sets `Authorization` (`"Authorization: …"` or `"Authorization;"`).
    static func isAuthorizationLine(_ line: String) -> Bool {
        line.isCurlHeaderLine(named: "authorization")
    }
}
