/// A credential an ``Authenticator`` applies to requests and refreshes: an OAuth access token with
/// its refresh token and expiry, a signed session, an API key that rotates. Alamofire's
/// `AuthenticationCredential` (the name this protocol had before 1.0).
///
/// (CurlBridge's ``Credential`` is another thing: a fixed user name and password or token that
/// libcurl sends. An authentication credential usually applies itself *as* one, for example with
/// ``Request/bearerToken(_:)``.)
public protocol RefreshableCredential: Sendable {
    /// Whether the credential must be refreshed before it is used again: `true` once it has
    /// expired, and better a little before (a token valid for an hour might say so in its last
    /// five minutes), so it does not expire on the way to the server. `false` by default.
    ///
    /// ``AuthenticationInterceptor`` checks it before every attempt and refreshes first when it
    /// is `true`, instead of sending a request the server will refuse.
    var requiresRefresh: Bool { get }
}

extension RefreshableCredential {
    /// Never: the credential is refreshed only after the server refuses it.
    public var requiresRefresh: Bool { false }
}

/// The name ``RefreshableCredential`` had before 1.0, next to ``Credential`` it needed a comment
/// to be told apart.
@available(*, deprecated, renamed: "RefreshableCredential")
public typealias AuthenticationCredential = RefreshableCredential
