/// Changes a request before each attempt: adds a fresh token, a signature, a trace header.
/// Alamofire's `RequestAdapter`.
///
/// Adapters run before every attempt (not before each redirect hop), client-wide ones first
/// (``Configuration/interceptors``), then the request's own (``Request/intercepted(by:)``).
/// Nothing is sent until they all return; an adapter that throws fails the request with its
/// error — a ``RequestError`` as it is, anything else as ``RequestError/Code/adaptationFailed``
/// with the error as ``RequestError/underlying``.
///
/// Adapters are `async` in every style: a blocking or callback call runs them in a task of its
/// own, and waits for them without holding a thread.
public protocol RequestAdapter: Sendable {
    /// Returns the request to send for this attempt.
    func adapt(_ request: Request, for context: AttemptContext) async throws -> Request

    /// Whether ``adapt(_:for:)`` ever changes anything; `true` by default. An interceptor that
    /// only retries says `false`, so that its requests start without a task hop.
    var adaptsRequests: Bool { get }
}

extension RequestAdapter {
    /// `true`: the adapter runs before every attempt.
    public var adaptsRequests: Bool { true }
}
