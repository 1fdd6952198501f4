extension Request {
    /// This request with pins of its own (or none, `nil`, to use the configuration's): every host
    /// it reaches — the first and each a redirect leads to — must meet `pinning`, whatever
    /// ``TLSConfiguration/pins`` says for it. A mismatch fails with
    /// ``RequestError/Code/pinningMismatch`` before a byte of the request is sent.
    ///
    /// ```swift
    /// let report = try await client.send(.get("https://files.example.com/report")
    ///     .pinning(try .publicKeys(["sha256//current…=", "sha256//backup…="])))
    /// ```
    public func pinning(_ pinning: Pinning?) -> Request {
        var copy = self
        copy.pinning = pinning
        return copy
    }
}
