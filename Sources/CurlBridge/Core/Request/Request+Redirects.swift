extension Request {
    /// This request with its own redirect policy, replacing the configuration's
    /// ``Configuration/redirects``.
    ///
    /// ```swift
    /// let first = try await client.send(.get("short/abc").redirects(.none))  // the 3xx itself
    /// ```
    public func redirects(_ policy: RedirectPolicy) -> Request {
        var copy = self
        copy.redirectPolicy = policy
        return copy
    }
}
