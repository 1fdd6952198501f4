/// What an ``AuthenticationInterceptor`` needs to know about one kind of credential: how to put
/// it on a request, how to get a fresh one, and how to tell that the server refused it.
/// Alamofire's `Authenticator`.
///
/// ```swift
/// struct OAuth: Authenticator {
///     let tokens: TokenService
///     func apply(_ token: OAuthToken, to request: Request) -> Request { request.bearerToken(token.access) }
///     func refresh(_ token: OAuthToken) async throws -> OAuthToken { try await tokens.refresh(token.refresh) }
///     func isRequest(_ request: Request, authenticatedWith token: OAuthToken) -> Bool {
///         request.credential == .bearer(token.access)
///     }
/// }
/// ```
public protocol Authenticator: Sendable {
    /// The credential this authenticator applies and refreshes (Alamofire's
    /// `Authenticator.Credential`; named so as not to hide CurlBridge's ``Credential``).
    associatedtype Token: RefreshableCredential

    /// Returns `request` authenticated with `token`, typically with
    /// ``Request/bearerToken(_:)`` or ``Request/setHeader(_:_:)``. It runs before every attempt,
    /// on a request that may already carry an older token: replace, do not append.
    func apply(_ token: Token, to request: Request) -> Request

    /// Returns a fresh credential in place of `token`, which expired or was refused — usually by
    /// sending `token`'s refresh token to the authorization server.
    ///
    /// ``AuthenticationInterceptor`` calls this once however many requests are waiting for it,
    /// in a task of its own that no request's cancellation cancels. Throwing fails every request
    /// waiting for the refresh with ``RequestError/Code/authenticationRefreshFailed``, the thrown
    /// error as its ``RequestError/underlying``. When the refresh token itself is refused, the
    /// user must sign in again: throw, and give the interceptor the new credential with
    /// ``AuthenticationInterceptor/setCredential(_:)``.
    ///
    /// The refresh may send its request through the same client or transport as the requests
    /// it authenticates, but must not itself go through this interceptor (it would wait for
    /// itself).
    func refresh(_ token: Token) async throws -> Token

    /// Whether `outcome`, the end of an attempt of `request`, means that the server refused the
    /// credential; by default, whether the response's status is `401 Unauthorized`.
    ///
    /// Answer `true` only for refusals by the authority that issued the credential: when a
    /// backend also answers `401` for "not allowed to do that", tell the two apart (by a
    /// `WWW-Authenticate` parameter such as `error="invalid_token"`, a body, the host), or every
    /// such answer costs a refresh.
    func isAuthenticationFailure(_ outcome: AttemptOutcome, of request: Request) -> Bool

    /// Whether `request`, as it was sent, carried `token` — for example whether its
    /// ``Request/credential`` is `.bearer(token.access)`.
    ///
    /// A refused request that carried an older token is sent again with the current one,
    /// without another refresh: it was on its way while the credential was being refreshed.
    func isRequest(_ request: Request, authenticatedWith token: Token) -> Bool
}

extension Authenticator {
    /// Whether a response arrived with status `401 Unauthorized`.
    public func isAuthenticationFailure(_ outcome: AttemptOutcome, of request: Request) -> Bool {
        outcome.statusCode == 401
    }
}
