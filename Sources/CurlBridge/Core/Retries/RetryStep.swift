#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What happens after an attempt that did not succeed, as a pure value: the ``RetryPolicy``'s
/// judgement of one outcome, given the request, the attempts so far and the time left. The
/// lifecycle wires it to timers and the transport; tests check it case by case with no sockets.
enum RetryStep: Equatable {
    /// Send the request again after `delay`.
    case retry(after: Duration)
    /// Report the outcome; `denial` says why a retryable outcome was not retried.
    case deliver(denial: AttemptRecord.RetryDenial?)

    /// The facts a decision needs about the request and its progress.
    struct Situation {
        /// The attempt that just ended, from 1.
        var attempt: Int
        /// Whether the method is idempotent or the request was marked so.
        var isIdempotent: Bool
        /// Whether the body, if any, can be sent again.
        var isRewindable: Bool
        /// The time left before the total timeout, if there is one.
        var timeLeft: Duration?
        /// A number in `0..<1` that picks the jittered backoff.
        var jitter: Double
        /// The wall-clock moment, for `Retry-After` dates.
        var now: Date
        /// Whether the next attempt continues from the bytes already received (a
        /// ``DownloadQueue`` resuming its partial file): then a connection lost after response
        /// bytes arrived is worth another try too, since nothing received is sent or used twice.
        var continuesReceivedBytes = false
    }

    /// The policy's decision about `outcome`. The retry budget is not consulted here: it is the
    /// last check, made only for a retry that would otherwise be sent, because consulting it
    /// spends it.
    static func decide(_ outcome: AttemptOutcome, policy: RetryPolicy, situation: Situation) -> RetryStep {
        guard isRetryable(outcome, policy: policy, continuesReceivedBytes: situation.continuesReceivedBytes) else {
            return .deliver(denial: nil)
        }
        return decideRetry(after: outcome, policy: policy, situation: situation)
    }

    /// Whether the policy retries `outcome` at all: a retryable status, or a retryable failure —
    /// a lost connection only if no byte of a response had arrived, unless the next attempt
    /// `continuesReceivedBytes`.
    static func isRetryable(_ outcome: AttemptOutcome, policy: RetryPolicy, continuesReceivedBytes: Bool = false) -> Bool {
        switch outcome {
        case .response(let response):
            return policy.retryableStatusCodes.contains(response.status.code)
        case .failure(let error):
            guard policy.retryableErrors.contains(error.code) else { return false }
            return error.code != .connectionLost || !error.receivedResponseBytes || continuesReceivedBytes
        }
    }

    /// The decision for an outcome the policy would retry: the limits that can stop it, then the
    /// wait.
    private static func decideRetry(after outcome: AttemptOutcome, policy: RetryPolicy, situation: Situation) -> RetryStep {
        guard situation.attempt < policy.maximumAttempts else { return .deliver(denial: .attemptsExhausted) }
        let facts = ResendRule.Facts(isIdempotent: situation.isIdempotent, isRewindable: situation.isRewindable)
        if let denial = ResendRule.denial(.policyRetry, facts) { return .deliver(denial: denial.retryDenial) }
        let delay: Duration
        if let asked = retryAfter(outcome, now: situation.now) {
            guard asked <= policy.maximumRetryAfter else { return .deliver(denial: .retryAfterTooLong) }
            delay = asked
        } else {
            delay = backoff(retry: situation.attempt, policy: policy, jitter: situation.jitter)
        }
        if let timeLeft = situation.timeLeft, delay >= timeLeft { return .deliver(denial: .deadline) }
        return .retry(after: delay)
    }

    /// The wait the response's `Retry-After` asks for, if it has a valid one.
    static func retryAfter(_ outcome: AttemptOutcome, now: Date) -> Duration? {
        guard case .response(let response) = outcome, let value = response.headerFields[.retryAfter] else { return nil }
        return RetryAfter.delay(from: value, now: now)
    }

    /// Full-jitter exponential backoff before retry number `retry` (from 1): `jitter` times
    /// `min(maximumDelay, baseDelay × 2^(retry − 1))`.
    static func backoff(retry: Int, policy: RetryPolicy, jitter: Double) -> Duration {
        let exponent = Double(min(max(retry - 1, 0), 62))
        let ceiling = min(policy.maximumDelay.seconds, policy.baseDelay.seconds * pow(2, exponent))
        return .nanoseconds(Int64((max(0, ceiling) * min(max(jitter, 0), 1) * 1e9).rounded(.down)))
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds for a Dispatch timer: none when negative, and at most
    /// `Int.max / 2` (some centuries), so that a deadline after it cannot overflow.
    var timerNanoseconds: Int {
        Int(min(max(0, seconds) * 1e9, Double(Int.max / 2)))
    }
}
