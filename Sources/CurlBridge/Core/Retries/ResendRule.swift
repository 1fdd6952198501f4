/// May a request be sent again, and if not, why not: the one answer for every way a request can
/// go out twice — a retry by the ``RetryPolicy`` or a ``RequestRetrier``, a redirect that keeps
/// the body, an HTTP/2 session that closed before answering, and curl's own re-send when a reused
/// connection closed unanswered. A pure value, tested case by case (`ResendRuleTests`).
///
/// The server may have processed a request it did not answer, so what is sent twice must be safe
/// to repeat: an idempotent method (or a request marked ``Request/idempotent(key:)``) with a body
/// that can be read again. A retrier's judgement replaces the idempotency rule (it knows the
/// API), never the body rule. A transport-level re-send happens at most once, and only while no
/// byte of an answer has arrived.
enum ResendRule {
    /// Why a request is about to be sent again.
    enum Occasion: Equatable {
        /// The ``RetryPolicy`` would retry the outcome.
        case policyRetry
        /// A ``RequestRetrier`` asked for a retry.
        case retrierRetry
        /// A `307` or `308` redirect, which sends the same body to the next URL.
        case redirectKeepingBody
        /// curl failed the transfer because its HTTP/2 session was closing (GOAWAY): the request
        /// goes once more on another connection, as curl does for the session's other streams.
        case closingSession(responseStarted: Bool, alreadyResent: Bool)
        /// curl found its reused connection closed before any answer and would send the request
        /// again on a new one; `previousResends` such re-sends already happened in this transfer.
        case unansweredOnReusedConnection(previousResends: Int)
    }

    /// What about the request decides.
    struct Facts: Equatable {
        /// An idempotent method, or a request marked so.
        var isIdempotent: Bool
        /// No body, or one that can be read again (bytes, a file, a form — not a one-shot stream).
        var isRewindable: Bool
    }

    /// Why a request may not be sent again.
    enum Denial: Equatable {
        /// Not idempotent, and nothing said it may be repeated.
        case notIdempotent
        /// The body is a stream that was already read.
        case bodyNotRewindable
        /// Part of an answer arrived: repeating could hand the caller a second one.
        case responseStarted
        /// The transport already sent it once more.
        case alreadyResent

        /// The reason as an attempt's record tells it, where it has one.
        var retryDenial: AttemptRecord.RetryDenial? {
            switch self {
            case .notIdempotent: .notIdempotent
            case .bodyNotRewindable: .bodyNotRewindable
            case .responseStarted, .alreadyResent: nil
            }
        }
    }

    /// Whether a request with `facts` may be sent again on `occasion`: `nil` if it may, else why not.
    static func denial(_ occasion: Occasion, _ facts: Facts) -> Denial? {
        switch occasion {
        case .policyRetry:
            guard facts.isIdempotent else { return .notIdempotent }
        case .retrierRetry, .redirectKeepingBody:
            break
        case .closingSession(let responseStarted, let alreadyResent):
            if responseStarted { return .responseStarted }
            if alreadyResent { return .alreadyResent }
            guard facts.isIdempotent else { return .notIdempotent }
        case .unansweredOnReusedConnection(let previousResends):
            guard facts.isIdempotent else { return .notIdempotent }
            if previousResends > 0 { return .alreadyResent }
        }
        return facts.isRewindable ? nil : .bodyNotRewindable
    }
}

extension ResendRule.Facts {
    /// The facts of `request` (before or after preparation, they agree).
    init(_ request: Request) {
        self.init(isIdempotent: request.isIdempotent, isRewindable: request.body?.isRewindable ?? true)
    }
}

extension ResendRule.Facts {
    /// The facts of a prepared request.
    init(_ request: PreparedRequest) {
        self.init(isIdempotent: request.isIdempotent, isRewindable: request.body?.isRewindable ?? true)
    }
}
