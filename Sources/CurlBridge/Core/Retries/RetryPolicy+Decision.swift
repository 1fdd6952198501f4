#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RetryPolicy {
    /// The policy's decision after try number `attempt` (from 1) of a request that may be sent
    /// again — idempotent, with no body or one that can be sent twice — ended with `outcome`: the
    /// wait before the next try, or `nil` when the policy does not retry it (an outcome it does not
    /// list, ``maximumAttempts`` reached, or a `Retry-After` longer than ``maximumRetryAfter``).
    ///
    /// The decision the clients make between attempts, for a program that sends the tries itself:
    /// a resumable downloader that continues a partial file with `Range`, a job runner. A response
    /// is judged by its status and its `Retry-After`; a failure by its code. No total timeout and
    /// no ``RetryBudget`` are consulted: those belong to the program's own loop.
    ///
    /// ```swift
    /// var attempt = 1
    /// while case .failure(let error) = try await fetchNextRange() {
    ///     guard let delay = policy.retryDelay(after: .failure(error), attempt: attempt, continuesReceivedBytes: true)
    ///     else { throw error }
    ///     try await Task.sleep(for: delay)
    ///     attempt += 1
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - outcome: How the try ended. An ``RequestError/Code/unacceptableStatus`` error is judged
    ///     as the response it carries, so that the status codes and the server's `Retry-After`
    ///     apply.
    ///   - attempt: The try that just ended, from 1.
    ///   - continuesReceivedBytes: Whether the next try continues from the bytes already received
    ///     (a download resumed from its partial file): then a ``RequestError/Code/connectionLost``
    ///     after response bytes arrived is retried too, since nothing is received twice. `false`
    ///     by default.
    ///   - jitter: A number in `0..<1` that picks the full-jitter backoff; random by default.
    ///   - now: The wall clock, for a `Retry-After` date; the system's by default.
    public func retryDelay(
        after outcome: AttemptOutcome, attempt: Int, continuesReceivedBytes: Bool = false,
        jitter: Double = .random(in: 0..<1), now: Date = Date()
    ) -> Duration? {
        let judged: AttemptOutcome =
            if case .failure(let error) = outcome, error.code == .unacceptableStatus, let response = error.response {
                .response(response)
            } else {
                outcome
            }
        let situation = RetryStep.Situation(
            attempt: attempt, isIdempotent: true, isRewindable: true, timeLeft: nil, jitter: jitter, now: now,
            continuesReceivedBytes: continuesReceivedBytes)
        guard case .retry(let delay) = RetryStep.decide(judged, policy: self, situation: situation) else { return nil }
        return delay
    }
}
