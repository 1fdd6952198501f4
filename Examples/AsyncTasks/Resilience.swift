import CurlBridge
import CurlBridgeTestServer
import Foundation

/// Retries of a failing server, an adapter that signs each attempt, and a monitor that watches,
/// against the embedded server's `/flaky` route (fails the first N requests of a key).
func demonstrateResilience(_ client: AsyncClient) async {
    var configuration = client.transport.configuration
    configuration.retryPolicy = RetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(50))
    configuration.interceptors = [Interceptor(adapt: { request, context in
        request.header("X-Attempt", String(context.attempt))
    })]
    configuration.eventMonitors = [ClosureEventMonitor(didScheduleRetry: { record, delay, _ in
        print("  attempt \(record.number) ended with \(record.outcome); retrying in \(delay)")
    })]
    let resilient = AsyncClient(transport: Transport(configuration: configuration))
    do throws(RequestError) {
        let key = UUID().uuidString
        let response = try await resilient.send(.get("flaky").query("key", key).query("failures", "2"))
        print("flaky server: \(response.status.code) after \(response.attempts.count) attempts")

        // A POST is not retried unless the server can de-duplicate it.
        let post = try await resilient.send(.post("flaky").query("key", UUID().uuidString).body("order"))
        print("POST to a failing server: \(post.status.code), not retried: \(post.attempts.last?.retryDenial.map { "\($0)" } ?? "-")")
    } catch {
        print("resilience demo failed: \(error)")
    }
    await resilient.transport.shutdown()
}
