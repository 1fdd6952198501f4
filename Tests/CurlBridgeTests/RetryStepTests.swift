@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// The retry decision as a pure value, case by case, with no sockets.
@Suite("Retry step")
struct RetryStepTests {
    private let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .seconds(1), maximumDelay: .seconds(4), maximumRetryAfter: .seconds(30))
    private let now = Date(timeIntervalSince1970: 1_000_000)

    private func situation(attempt: Int = 1, idempotent: Bool = true, rewindable: Bool = true, timeLeft: Duration? = nil, jitter: Double = 0.5) -> RetryStep.Situation {
        RetryStep.Situation(attempt: attempt, isIdempotent: idempotent, isRewindable: rewindable, timeLeft: timeLeft, jitter: jitter, now: now)
    }

    private func failure(_ code: RequestError.Code, afterResponseBytes: Bool = false) -> AttemptOutcome {
        var error = RequestError(code, "test")
        error.receivedResponseBytes = afterResponseBytes
        return .failure(error)
    }

    @Test("retryable statuses retry with full-jitter backoff; others are delivered", arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatuses(status: Int) {
        #expect(RetryStep.decide(responseOutcome(status), policy: policy, situation: situation()) == .retry(after: .milliseconds(500)))
    }

    @Test("other statuses and successes are delivered with no denial", arguments: [200, 301, 400, 401, 404, 501])
    func otherStatuses(status: Int) {
        #expect(RetryStep.decide(responseOutcome(status), policy: policy, situation: situation()) == .deliver(denial: nil))
    }

    @Test("the backoff ceiling doubles per retry up to the maximum; jitter picks within it")
    func backoff() {
        #expect(RetryStep.backoff(retry: 1, policy: policy, jitter: 1) == .seconds(1))
        #expect(RetryStep.backoff(retry: 2, policy: policy, jitter: 1) == .seconds(2))
        #expect(RetryStep.backoff(retry: 3, policy: policy, jitter: 1) == .seconds(4))
        #expect(RetryStep.backoff(retry: 60, policy: policy, jitter: 1) == .seconds(4))
        #expect(RetryStep.backoff(retry: 3, policy: policy, jitter: 0) == .zero)
        #expect(RetryStep.backoff(retry: 2, policy: policy, jitter: 0.25) == .milliseconds(500))
    }

    @Test("retryable failures: refused, timeouts, host not found, and a connection lost before any response byte")
    func retryableFailures() {
        for code in [RequestError.Code.connectFailed, .connectTimedOut, .idleTimedOut, .hostNotFound, .connectionLost] {
            #expect(RetryStep.decide(failure(code), policy: policy, situation: situation()) == .retry(after: .milliseconds(500)), "\(code)")
        }
        #expect(RetryStep.decide(failure(.connectionLost, afterResponseBytes: true), policy: policy, situation: situation()) == .deliver(denial: nil))
        for code in [RequestError.Code.tlsFailure, .totalTimedOut, .responseTruncated, .invalidURL, .cancelled] {
            #expect(RetryStep.decide(failure(code), policy: policy, situation: situation()) == .deliver(denial: nil), "\(code)")
        }
    }

    @Test("limits deny a retry the policy would make, and say which")
    func denials() {
        #expect(RetryStep.decide(responseOutcome(503), policy: policy, situation: situation(attempt: 3)) == .deliver(denial: .attemptsExhausted))
        #expect(RetryStep.decide(responseOutcome(503), policy: policy, situation: situation(idempotent: false)) == .deliver(denial: .notIdempotent))
        #expect(RetryStep.decide(responseOutcome(503), policy: policy, situation: situation(rewindable: false)) == .deliver(denial: .bodyNotRewindable))
        #expect(RetryStep.decide(responseOutcome(503), policy: policy, situation: situation(timeLeft: .milliseconds(400))) == .deliver(denial: .deadline))
        #expect(RetryStep.decide(responseOutcome(503), policy: .none, situation: situation()) == .deliver(denial: .attemptsExhausted))
    }

    @Test("Retry-After in seconds or as an HTTP-date replaces the backoff; beyond the cap, no retry")
    func retryAfter() {
        #expect(RetryStep.decide(responseOutcome(503, retryAfter: "7"), policy: policy, situation: situation()) == .retry(after: .seconds(7)))
        #expect(RetryStep.decide(responseOutcome(429, retryAfter: " 0 "), policy: policy, situation: situation()) == .retry(after: .zero))
        let inTwelveSeconds = "Mon, 12 Jan 1970 13:46:52 GMT"  // now + 12 s
        #expect(RetryStep.decide(responseOutcome(503, retryAfter: inTwelveSeconds), policy: policy, situation: situation()) == .retry(after: .seconds(12)))
        #expect(RetryStep.decide(responseOutcome(503, retryAfter: "Mon, 01 Jan 1970 00:00:00 GMT"), policy: policy, situation: situation()) == .retry(after: .zero))
        #expect(RetryStep.decide(responseOutcome(503, retryAfter: "31"), policy: policy, situation: situation()) == .deliver(denial: .retryAfterTooLong))
        #expect(RetryStep.decide(responseOutcome(503, retryAfter: "99999999999999999999999"), policy: policy, situation: situation()) == .deliver(denial: .retryAfterTooLong))
        #expect(RetryStep.decide(responseOutcome(503, retryAfter: "soon"), policy: policy, situation: situation()) == .retry(after: .milliseconds(500)))
        #expect(RetryStep.decide(responseOutcome(503, retryAfter: "20"), policy: policy, situation: situation(timeLeft: .seconds(19))) == .deliver(denial: .deadline))
    }

    @Test("the budget allows its floor plus its ratio of requests within the window, then refuses, then recovers")
    func budget() {
        let second: UInt64 = 1_000_000_000
        let ledger = RetryBudgetLedger(RetryBudget(ratio: 0.5, minimumRetries: 1, window: .seconds(10)))
        let start = 100 * second
        #expect(ledger.withdrawRetry(now: start))
        #expect(!ledger.withdrawRetry(now: start))
        for _ in 0..<4 { ledger.recordRequest(now: start) }
        #expect(ledger.withdrawRetry(now: start + second))
        #expect(ledger.withdrawRetry(now: start + second))
        #expect(!ledger.withdrawRetry(now: start + 2 * second))
        // Ten seconds on, the old counts have left the window: the floor again.
        #expect(ledger.withdrawRetry(now: start + 12 * second))
        #expect(!ledger.withdrawRetry(now: start + 12 * second))
        let unlimited = RetryBudgetLedger(.unlimited)
        #expect((0..<1000).allSatisfy { _ in unlimited.withdrawRetry(now: start) })
    }

    @Test("The public decision retries a connection lost after response bytes only when the next try continues them")
    func publicDecisionContinuesReceivedBytes() {
        var policy = policy
        policy.retryableErrors.insert(.connectionLost)
        let lost = failure(.connectionLost, afterResponseBytes: true)
        #expect(policy.retryDelay(after: lost, attempt: 1, jitter: 0.5, now: now) == nil)
        #expect(policy.retryDelay(after: lost, attempt: 1, continuesReceivedBytes: true, jitter: 0.5, now: now) == .milliseconds(500))
    }
}
