/// What happened to one attempt of a request: recorded on ``Response/attempts`` and
/// ``RequestError/attempts``, for logs, metrics and tests.
public struct AttemptRecord: Sendable, Hashable {
    /// How an attempt ended.
    public enum Outcome: Sendable, Hashable {
        /// A response arrived, with this status code.
        case response(status: Int)
        /// It failed with this code.
        case failure(RequestError.Code)
    }

    /// Why a failure that could have been retried was not.
    public enum RetryDenial: Sendable, Hashable {
        /// The ``RetryPolicy/maximumAttempts`` were used up.
        case attemptsExhausted
        /// The method is not idempotent and the request was not marked ``Request/idempotent(key:)``.
        case notIdempotent
        /// The body cannot be sent twice.
        case bodyNotRewindable
        /// The transport's ``RetryBudget`` is spent.
        case budgetExhausted
        /// The server's `Retry-After` asked for longer than ``RetryPolicy/maximumRetryAfter``.
        case retryAfterTooLong
        /// The total timeout would run out before the next attempt could start.
        case deadline
    }

    /// The attempt's number, from 1.
    public var number: Int
    /// How it ended.
    public var outcome: Outcome
    /// How long it took, from the moment it was handed to curl to its outcome.
    public var duration: Duration
    /// The wait before the next attempt, when one followed.
    public var retryDelay: Duration?
    /// Why it was not retried although the policy would have retried its outcome, if so.
    public var retryDenial: RetryDenial?

    /// Creates a record.
    public init(
        number: Int, outcome: Outcome, duration: Duration, retryDelay: Duration? = nil, retryDenial: RetryDenial? = nil
    ) {
        self.number = number
        self.outcome = outcome
        self.duration = duration
        self.retryDelay = retryDelay
        self.retryDenial = retryDenial
    }
}
