import HTTPTypes

extension Request {
    /// This request with its own retry policy, replacing the configuration's
    /// ``Configuration/retryPolicy``.
    ///
    /// ```swift
    /// let report = try await client.send(.get("reports/today").retries(.standard))
    /// ```
    public func retries(_ policy: RetryPolicy) -> Request {
        var copy = self
        copy.retryPolicy = policy
        return copy
    }

    /// This request, declared safe to send more than once although its method (`POST`, `PATCH`)
    /// is not idempotent — because the server de-duplicates it. With a `key`, also sets the
    /// `Idempotency-Key` header (IETF draft, used by Stripe and others) that lets it do so.
    ///
    /// ```swift
    /// let request = Request.post("payments").json(payment).idempotent(key: payment.id).retries(.standard)
    /// ```
    public func idempotent(key: String? = nil) -> Request {
        var copy = key.map { header("Idempotency-Key", $0) } ?? self
        copy.isMarkedIdempotent = true
        return copy
    }

    /// This request with adapters and retriers of its own, run after the configuration's
    /// ``Configuration/interceptors`` (adapters) and before them (retriers).
    public func intercepted(by interceptors: any RequestInterceptor...) -> Request {
        var copy = self
        copy.interceptors += interceptors
        return copy
    }

    /// Whether sending the request twice has the effect of sending it once: an idempotent method,
    /// or a request marked so (``idempotent(key:)``).
    var isIdempotent: Bool { hasIdempotentMethod || isMarkedIdempotent }

    /// Whether the method is idempotent (RFC 9110 §9.2.2): `GET`, `HEAD`, `OPTIONS`, `PUT`,
    /// `DELETE` and `TRACE`.
    var hasIdempotentMethod: Bool {
        switch method {
        case .get, .head, .options, .put, .delete, .trace: true
        default: false
        }
    }
}
