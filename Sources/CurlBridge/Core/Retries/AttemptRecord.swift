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

    /// Why a failure that could have been retried was not. A struct with static members, like
    /// ``RequestError/Code``, so that a reason added later breaks no caller's `switch`.
    public struct RetryDenial: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case attemptsExhausted, notIdempotent, bodyNotRewindable, budgetExhausted, retryAfterTooLong, deadline
            case responseDelivered
        }

        private let kind: Kind

        private init(_ kind: Kind) { self.kind = kind }

        /// The stable short name of the reason, e.g. `"budgetExhausted"`.
        public var description: String { kind.rawValue }

        /// The ``RetryPolicy/maximumAttempts`` (or the retriers' limit of 10) were used up.
        public static let attemptsExhausted = RetryDenial(.attemptsExhausted)
        /// The method is not idempotent and the request was not marked ``Request/idempotent(key:)``.
        public static let notIdempotent = RetryDenial(.notIdempotent)
        /// The body cannot be sent twice.
        public static let bodyNotRewindable = RetryDenial(.bodyNotRewindable)
        /// The transport's ``RetryBudget`` is spent.
        public static let budgetExhausted = RetryDenial(.budgetExhausted)
        /// The server's `Retry-After` asked for longer than ``RetryPolicy/maximumRetryAfter``.
        public static let retryAfterTooLong = RetryDenial(.retryAfterTooLong)
        /// The total timeout would run out before the next attempt could start.
        public static let deadline = RetryDenial(.deadline)
        /// The response had already reached the stream or download consumer (its head, or
        /// body bytes), so sending the request again would hand it a second one.
        public static let responseDelivered = RetryDenial(.responseDelivered)
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
