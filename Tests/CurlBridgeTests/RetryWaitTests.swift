import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// What happens while a request waits between attempts: cancellation ends it at once, shutdown
/// fails it, and monitors see every step.
@Suite("Waiting between attempts", .hangGuard)
struct RetryWaitTests {
    /// Waits 30 s before the second attempt (the server's `Retry-After`), so only a cancel can end
    /// the wait within a test's lifetime.
    private static let longWait = RetryPolicy(maximumAttempts: 3, baseDelay: .zero)

    /// A transport whose monitor signals when a retry is scheduled.
    private func transport(_ server: TestServer, scheduled: AsyncStream<Void>.Continuation) -> Transport {
        Fixture.transport(server) {
            $0.retryPolicy = Self.longWait
            $0.eventMonitors = [ClosureEventMonitor(didScheduleRetry: { _, _, _ in scheduled.yield() })]
        }
    }

    @Test("cancelling during the backoff completes with cancelled at once; no further attempt reaches the server", arguments: ClientStyle.allCases)
    func cancelDuringBackoff(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let (scheduled, signal) = AsyncStream<Void>.makeStream()
        let transport = transport(server, scheduled: signal)
        let request = Request.get("flaky?key=\(key)&failures=1&retry-after=30")
        let error: RequestError?
        switch style {
        case .async:
            let task = Task { try await AsyncClient(transport: transport).send(request) }
            _ = await scheduled.first { _ in true }
            task.cancel()
            error = await task.result.failure as? RequestError
        case .callback:
            let (outcomes, delivery) = AsyncStream<Result<Response, RequestError>>.makeStream()
            let task = CallbackClient(transport: transport).send(request) { delivery.yield($0) }
            _ = await scheduled.first { _ in true }
            task.cancel()
            error = await outcomes.first { _ in true }?.failure
        case .blocking:
            let canceller = TransferCanceller()
            let client = BlockingClient(transport: transport)
            async let outcome = onWorkerThread { Result { () throws(RequestError) in try client.send(request, cancellation: canceller) } }
            _ = await scheduled.first { _ in true }
            canceller.cancel()
            error = await outcome.failure
        }
        #expect(error?.code == .cancelled)
        #expect(error?.attempts.map(\.outcome) == [.response(status: 503)])
        await transport.drainEvents()
        #expect(FlakyRoute.requestCount(key: key) == 1)
    }

    @Test("cancelAll and shutdown end waiting requests: cancelled, and transportShutDown")
    func cancelAllAndShutdown() async throws {
        let server = try await Fixture.server()
        let (scheduled, signal) = AsyncStream<Void>.makeStream()
        let transport = transport(server, scheduled: signal)
        let client = CallbackClient(transport: transport)
        let (outcomes, delivery) = AsyncStream<Result<Response, RequestError>>.makeStream()
        client.send(.get("flaky?key=\(UUID().uuidString)&failures=1&retry-after=30")) { delivery.yield($0) }
        var signals = scheduled.makeAsyncIterator()
        _ = await signals.next()
        transport.cancelAll()
        var iterator = outcomes.makeAsyncIterator()
        #expect(await iterator.next()?.failure?.code == .cancelled)

        client.send(.get("flaky?key=\(UUID().uuidString)&failures=1&retry-after=30")) { delivery.yield($0) }
        _ = await signals.next()
        await transport.shutdown()
        #expect(await iterator.next()?.failure?.code == .transportShutDown)
    }

    @Test("letting go of the transport and its CallbackClient fails a request waiting to be retried with transportShutDown")
    func releasingTheCallbackClientShutsTheTransportDown() async throws {
        let server = try await Fixture.server()
        let (scheduled, signal) = AsyncStream<Void>.makeStream()
        let (outcomes, delivery) = AsyncStream<Result<Response, RequestError>>.makeStream()
        var client: CallbackClient? = CallbackClient(transport: transport(server, scheduled: signal))
        client?.send(.get("flaky?key=\(UUID().uuidString)&failures=1&retry-after=30")) { delivery.yield($0) }
        _ = await scheduled.first { _ in true }
        // The program's last references: the request's completion must not hold the client (and
        // through it the transport), or the request would wait its 30 s and succeed.
        client = nil
        #expect(await outcomes.first { _ in true }?.failure?.code == .transportShutDown)
    }

    @Test("monitors see each step in order, on their queue, with the library's durations", arguments: ClientStyle.allCases)
    func monitorSequence(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let events = Mutex<[String]>([])
        let (completed, signal) = AsyncStream<Void>.makeStream()
        let monitor = ClosureEventMonitor(
            requestDidStart: { request, _ in events.withLock { $0.append("start \(request.method)") } },
            attemptDidStart: { _, _, attempt in events.withLock { $0.append("attempt \(attempt)") } },
            didReceiveHead: { head, _, attempt in events.withLock { $0.append("head \(head.status.code) \(attempt)") } },
            didRedirect: { hop, _ in events.withLock { $0.append("redirect \(hop.status.code)") } },
            didScheduleRetry: { record, delay, _ in events.withLock { $0.append("retry after \(record.number) in \(delay)") } },
            requestDidComplete: { _, _, result, _ in
                events.withLock { $0.append("complete \((try? result.get())?.status.code ?? 0)") }
                signal.yield()
            })
        let transport = Fixture.transport(server) {
            $0.retryPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: .zero)
            $0.eventMonitors = [monitor]
        }
        let target = "/flaky?key=\(key)&failures=1"
        let response = try await style.send(.get("redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"), through: transport).get()
        #expect(response.status.code == 200)
        _ = await completed.first { _ in true }
        #expect(events.withLock { $0 } == [
            "start GET", "attempt 1", "head 302 1", "redirect 302", "head 503 1", "retry after 1 in 0.0 seconds",
            "attempt 2", "head 302 2", "redirect 302", "head 200 2", "complete 200",
        ])
    }
}
