import CurlBridge
import Foundation
import Testing

/// ``RetryPolicy/retryDelay(after:attempt:continuesReceivedBytes:jitter:now:)``: the retry
/// decision a program that sends its own tries asks, through the public API only.
@Suite("RetryPolicy.retryDelay: the public retry decision")
struct RetryPolicyDecisionTests {
    private let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .seconds(1), maximumDelay: .seconds(4), maximumRetryAfter: .seconds(30))
    private let now = Date(timeIntervalSince1970: 1_000_000)

    @Test("A retryable failure waits the jittered backoff, which doubles per try up to the maximum")
    func backoffGrows() {
        let lost = AttemptOutcome.failure(RequestError(.connectFailed, "refused"))
        #expect(policy.retryDelay(after: lost, attempt: 1, jitter: 0.5, now: now) == .milliseconds(500))
        #expect(policy.retryDelay(after: lost, attempt: 2, jitter: 1, now: now) == .seconds(2))
        #expect(policy.retryDelay(after: lost, attempt: 2, jitter: 0, now: now) == .zero)
    }

    @Test("Not retried: an error or status the policy does not list, or the last attempt")
    func notRetried() {
        #expect(policy.retryDelay(after: .failure(RequestError(.invalidURL, "bad")), attempt: 1, jitter: 0.5, now: now) == nil)
        #expect(policy.retryDelay(after: responseOutcome(404), attempt: 1, jitter: 0.5, now: now) == nil)
        #expect(policy.retryDelay(after: responseOutcome(503), attempt: 3, jitter: 0.5, now: now) == nil)
    }

    @Test("A response's Retry-After is the wait, unless it asks for more than maximumRetryAfter")
    func retryAfter() {
        #expect(policy.retryDelay(after: responseOutcome(503, retryAfter: "7"), attempt: 1, jitter: 0.5, now: now) == .seconds(7))
        #expect(policy.retryDelay(after: responseOutcome(429, retryAfter: "31"), attempt: 1, jitter: 0.5, now: now) == nil)
    }

    @Test("An unacceptableStatus error is judged as the response it carries: its status and Retry-After")
    func errorStatusIsItsResponse() {
        func refused(_ outcome: AttemptOutcome) -> AttemptOutcome {
            guard case .response(let response) = outcome else { return outcome }
            return .failure(RequestError(.unacceptableStatus, "status \(response.status.code)", response: response))
        }
        #expect(policy.retryDelay(after: refused(responseOutcome(503, retryAfter: "7")), attempt: 1, jitter: 0.5, now: now) == .seconds(7))
        #expect(policy.retryDelay(after: refused(responseOutcome(404)), attempt: 1, jitter: 0.5, now: now) == nil)
        #expect(policy.retryDelay(after: .failure(RequestError(.unacceptableStatus, "no response")), attempt: 1, jitter: 0.5, now: now) == nil)
    }
}
