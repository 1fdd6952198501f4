@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// The retry lifecycle's edges, found in review: timers on a busy loop, responses that already
/// reached a consumer, and the total timeout while interceptors run.
@Suite("Retry edges", .hangGuard)
struct RetryEdgeTests {
    /// While any transfer is in flight the loop's queue runs the loop without a break, so a
    /// backoff timer on that queue would wait for every other transfer: the timer runs elsewhere.
    @Test("a retry's backoff timer fires while another transfer keeps the loop busy", arguments: ClientStyle.allCases)
    func backoffNotStarvedByBusyLoop(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let transport = Fixture.transport(server) { $0.retryPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: .zero) }
        let (slowDone, signal) = AsyncStream<Void>.makeStream()
        let slowFinished = Mutex(false)
        // A transfer that would run for a day keeps the loop busy until it is cancelled.
        transport.start(.get("drip?bytes=1000000&interval=100"), events: TransferEvents { _ in
            slowFinished.withLock { $0 = true }
            signal.yield()
        })
        try await transport.waitUntilInFlight(1)
        let response = try await style.send(.get("flaky?key=\(key)&failures=1"), through: transport).get()
        #expect(response.status.code == 200)
        #expect(response.attempts.count == 2)
        #expect(!slowFinished.withLock { $0 }, "the retry came only after the other transfer ended")
        transport.cancelAll()
        _ = await slowDone.first { _ in true }
    }

    /// A stream consumer got the 200 head and part of the body; the connection then drops. The
    /// policy retries truncated responses here, but not once the consumer has the response: a
    /// retry would hand it a second head and the same bytes again.
    @Test("a stream whose response reached the consumer is not retried by the policy", arguments: ClientStyle.allCases)
    func streamNotRetriedAfterHeadDelivered(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let policy = RetryPolicy(maximumAttempts: 2, baseDelay: .zero, retryableErrors: [.responseTruncated])
        let transport = Fixture.transport(server) { $0.retryPolicy = policy }
        let outcome = await style.stream(.get("close-mid-body"), through: transport)
        #expect(outcome.head?.status.code == 200)
        #expect(outcome.body.count == 100)
        #expect(outcome.error?.code == .responseTruncated)
        #expect(outcome.error?.attempts.count == 1, "retried after the consumer had the head: \(outcome.error?.attempts.map(\.outcome) ?? [])")
        #expect(outcome.error?.attempts.last?.retryDenial == .responseDelivered)
        #expect(outcome.orderViolations == 0)
    }

    /// `/close-mid-body` sends a 200 head and 100 bytes, then closes. A retrier asking to retry
    /// is obeyed although those bytes already reached the stream consumer: it gets them twice.
    @Test("a retrier's retry after body bytes reached a stream consumer does not duplicate them", arguments: ClientStyle.allCases)
    func retrierRetryDoesNotDuplicateStreamedBytes(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        let retryOnce = Interceptor(retry: { _, _, context in context.attempt == 1 ? .retry : .doNotRetry })
        let outcome = await style.stream(.get("close-mid-body").intercepted(by: retryOnce), through: transport)
        #expect(outcome.head?.status.code == 200)
        #expect(outcome.body.count == 100, "the consumer received \(outcome.body.count) bytes of a 100-byte partial body")
        #expect(outcome.error?.attempts.count == 1)
    }

    /// A retryable 503 whose body is larger than `RequestStateMachine.holdLimit` (64 KiB) is
    /// released to the stream consumer mid-body ("and is not retried", says the comment) — but
    /// `attemptEnded` still asks the policy, which retries: the consumer gets the 503's head and
    /// 100 000 bytes, then the 200's head and body in the same stream.
    @Test("a failure response released to a stream consumer for its size is not retried", arguments: ClientStyle.allCases)
    func releasedHeldResponseIsNotRetried(style: ClientStyle) async throws {
        let big = Data(repeating: UInt8(ascii: "x"), count: 100_000)
        let server = try ScriptedServer([
            ScriptedServer.response(status: "503 Service Unavailable", body: big),
            ScriptedServer.response(status: "200 OK", body: Data("ok".utf8)),
        ])
        let transport = Transport(configuration: Configuration(retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: .zero)))
        let outcome = await style.stream(.get(server.url), through: transport)
        #expect(outcome.head?.status.code == 503)
        #expect(outcome.body == big, "the stream carried \(outcome.body.count) bytes")
        #expect(outcome.orderViolations == 0)
        #expect(server.requestCount == 1)
    }

    /// The total timeout spans all attempts, including the time the request waits for its
    /// adapters: a slow adapter (a token refresh) cannot hold the request past it.
    @Test("the total timeout ends a request whose adapter is still running", arguments: ClientStyle.allCases)
    func totalTimeoutDuringAdapter(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server) {
            $0.interceptors = [Interceptor(adapt: { request, _ in
                try? await Task.sleep(for: .seconds(3600))  // until the request's end cancels it
                return request
            })]
        }
        let error = await style.send(.get("echo").timeout(total: .milliseconds(500)), through: transport).failure
        #expect(error?.code == .totalTimedOut)
        #expect(error?.attempts.isEmpty == true)
    }
}
