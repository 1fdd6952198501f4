extension Request {
    /// This request with HTTP Basic credentials (``Credential/basic(username:password:)``), sent
    /// as `Authorization: Basic …` with the first request; replaces any credential set before.
    ///
    /// Replaces AFNetworking's `setAuthorizationHeaderFieldWithUsername:password:` and
    /// NSURLSession's `NSURLCredential` for Basic. The value is redacted from
    /// ``curlDescription(for:revealingSecrets:)`` and never sent over plain `http://` unless the
    /// configuration allows it (``Configuration/allowsCredentialsOverPlainHTTP``).
    public func basicAuth(username: String, password: String) -> Request {
        credential(.basic(username: username, password: password))
    }

    /// This request with a bearer token (``Credential/bearer(_:)``), sent as
    /// `Authorization: Bearer <token>`; replaces any credential set before.
    public func bearerToken(_ token: String) -> Request {
        credential(.bearer(token))
    }

    /// This request with `credential` (or none), which replaces any credential set before and
    /// any `Authorization` header field, and takes the place of the configuration's credential
    /// for the URL's origin (``Configuration/credentials``).
    ///
    /// The credential is stored in ``Request/credential``; a redirect to another origin clears it.
    public func credential(_ credential: Credential?) -> Request {
        var copy = self
        copy.credential = credential
        return copy
    }
}
