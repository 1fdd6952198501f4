extension Request {
    /// This request with HTTP Basic credentials (``Credential/basic(username:password:)``), sent
    /// as `Authorization: Basic …` with the first request; replaces any credential set before.
    ///
    /// Replaces AFNetworking's `setAuthorizationHeaderFieldWithUsername:password:` and
    /// NSURLSession's `NSURLCredential` for Basic. The value is redacted from
    /// ``curlDescription(for:revealingSecrets:)`` and sent over plain `http://` only to this
    /// machine's loopback, unless ``allowingCredentialsOverPlainHTTP(_:)`` or
    /// ``Configuration/allowsCredentialsOverPlainHTTP`` allows it.
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

    /// This request allowed (or not) to carry credentials — a ``Credential``, an `Authorization`
    /// header or user info in the URL — over plain `http://` to any host, where by default only
    /// this machine's loopback (exactly `localhost`, `127.0.0.0/8`, `::1`, reached without a proxy) gets
    /// them and any other host fails with ``RequestError/Code/credentialsOverPlainHTTP``.
    ///
    /// ```swift
    /// let response = try await client.send(.get("http://printer.lan/status").basicAuth(username: "admin", password: secret)
    ///     .allowingCredentialsOverPlainHTTP())   // readable by anyone on the path
    /// ```
    public func allowingCredentialsOverPlainHTTP(_ allowed: Bool = true) -> Request {
        var copy = self
        copy.allowsCredentialsOverPlainHTTP = allowed
        return copy
    }
}
