/// An adapter and a retrier in one, the unit ``Configuration/interceptors`` and
/// ``Request/intercepted(by:)`` take. Alamofire's `RequestInterceptor`.
///
/// Both requirements have defaults (the request unchanged; ``RetryDecision/doNotRetry``), so a
/// type implements only what it needs.
public protocol RequestInterceptor: RequestAdapter, RequestRetrier {}

extension RequestInterceptor {
    /// Returns `request` unchanged.
    public func adapt(_ request: Request, for context: AttemptContext) async throws -> Request { request }

    /// Has no opinion.
    public func retry(_ request: Request, after outcome: AttemptOutcome, context: AttemptContext) async -> RetryDecision {
        .doNotRetry
    }
}

/// An interceptor made of closures, for quick use. Alamofire's `Adapter`, `Retrier` and `Interceptor`.
///
/// ```swift
/// let signing = Interceptor(adapt: { request, _ in request.header("X-Signature", sign(request)) })
/// let onConflict = Interceptor(retry: { _, outcome, _ in outcome.statusCode == 409 ? .retryAfter(.milliseconds(50)) : .doNotRetry })
/// ```
public struct Interceptor: RequestInterceptor {
    private let adaptation: (@Sendable (Request, AttemptContext) async throws -> Request)?
    private let decision: (@Sendable (Request, AttemptOutcome, AttemptContext) async -> RetryDecision)?

    /// Creates an interceptor from an adapting closure, a retrying closure, or both.
    public init(
        adapt: (@Sendable (Request, AttemptContext) async throws -> Request)? = nil,
        retry: (@Sendable (Request, AttemptOutcome, AttemptContext) async -> RetryDecision)? = nil
    ) {
        adaptation = adapt
        decision = retry
    }

    /// Whether an adapting closure was given.
    public var adaptsRequests: Bool { adaptation != nil }

    /// Whether a retrying closure was given.
    public var decidesRetries: Bool { decision != nil }

    /// Runs the adapting closure, if any.
    public func adapt(_ request: Request, for context: AttemptContext) async throws -> Request {
        try await adaptation?(request, context) ?? request
    }

    /// Runs the retrying closure, if any.
    public func retry(_ request: Request, after outcome: AttemptOutcome, context: AttemptContext) async -> RetryDecision {
        await decision?(request, outcome, context) ?? .doNotRetry
    }
}
