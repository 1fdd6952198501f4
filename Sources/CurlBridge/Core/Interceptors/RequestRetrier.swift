/// What a ``RequestRetrier`` wants done after an attempt.
public enum RetryDecision: Sendable {
    /// Send the request again now.
    case retry
    /// Send the request again after this wait.
    case retryAfter(Duration)
    /// No opinion: ask the next retrier, then the ``RetryPolicy``.
    case doNotRetry
    /// Stop, and fail with this error: a ``RequestError`` as it is, anything else as
    /// ``RequestError/Code/retrierFailed`` with the error as ``RequestError/underlying``.
    case fail(any Error & Sendable)
}

/// Decides whether an attempt that ended with a failure or a response is sent again. Alamofire's
/// `RequestRetrier`.
///
/// After each attempt that did not deliver a success (a failure, or a response with a status of
/// 400 or more) the retriers are asked in order — the request's own, then the client's — and the
/// first decision other than ``RetryDecision/doNotRetry`` wins; when all pass, the
/// ``RetryPolicy`` decides. A retrier's retry is still never sent when the body cannot be sent
/// twice or the total timeout would run out; it is not subject to the idempotency rule or the
/// ``RetryBudget`` (a retrier knows why it retries, as after a credential refresh), but a request
/// makes at most 10 attempts in all, or ``RetryPolicy/maximumAttempts`` if that is more.
public protocol RequestRetrier: Sendable {
    /// Decides what happens after `outcome`, the end of attempt `context.attempt` of `request`
    /// (the request as adapted for that attempt).
    func retry(_ request: Request, after outcome: AttemptOutcome, context: AttemptContext) async -> RetryDecision

    /// Whether ``retry(_:after:context:)`` ever has an opinion; `true` by default. An interceptor
    /// that only adapts says `false`, so that its requests skip the retry machinery: no task per
    /// failed attempt, and failure responses are not held from stream and download consumers.
    var decidesRetries: Bool { get }
}

extension RequestRetrier {
    /// `true`: the retrier is asked after every failed attempt.
    public var decidesRetries: Bool { true }
}
