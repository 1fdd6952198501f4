@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

@Suite(.hangGuard) struct CancellationAndShutdownTests {
    @Test func cancellingTheTaskCancelsTheTransfer() async throws {
        let client = AsyncClient(transport: Fixture.transport(try await Fixture.server()))
        let transport = client.transport
        let task = Task { () async throws(RequestError) -> Response in try await client.send(.get("never-respond")) }
        try await transport.waitUntilInFlight(1)
        task.cancel()
        #expect((await task.result.failure as? RequestError)?.code == .cancelled)
        #expect(transport.inFlightCount == 0)
        // How soon: cancelEndsTheTransferWithoutWaitingForTheServer, timed where only the library runs.
    }

    @Test func cancelEndsTheTransferWithoutWaitingForTheServer() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let completedAt = Mutex<ContinuousClock.Instant?>(nil)
        let (steps, step) = AsyncStream<TransferStep>.makeStream()
        var events = TransferEvents { outcome in
            completedAt.withLock { $0 = .now }  // stamped inside the completion event
            step.yield(.completed(outcome))
        }
        events.onResponseHead = { _ in
            step.yield(.head)
            return nil
        }
        // The head at once, then one byte an hour later: only the cancel can end it (were the
        // cancel lost, the 60 s idle timeout would, failing the code check).
        let handle = try #require(transport.start(.get("drip?bytes=1&interval=3600000"), events: events))
        var progress = steps.makeAsyncIterator()
        try #require(await progress.next() == .head)
        // Mid-response, from another thread while the loop sleeps in curl_multi_poll, as a task's
        // cancellation handler does. However late this task got here, the clock starts only now.
        let cancelledAt = ContinuousClock.now
        handle.cancel()
        let outcome = try #require(await progress.next()?.outcome)
        #expect(outcome.failure?.code == .cancelled)
        #expect(transport.inFlightCount == 0)
        let latency = try #require(completedAt.withLock { $0 }) - cancelledAt
        // A hang guard, not a benchmark: the loop applies a cancel on the turn its wake-up starts.
        #expect(latency < .seconds(5), "\(latency) from cancel() to the completion event")
    }

    /// A cancel made while the loop's thread is held up (a busy machine) waits in the inbox for
    /// the next turn, while the request's idle deadline passes. The turn once judged deadlines at
    /// its end, so the deadline won over the earlier cancel: `idleTimedOut` (the interleaving test
    /// caught it under load). Here the turn that runs the cancel's submitter holds the loop past
    /// the deadline on purpose.
    @Test("a cancel made before the idle limit passed wins, though the loop is held up past the limit")
    func cancelBeforeIdleDeadlineWins() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let loop = try transport.core.get().loop
        let limit = UInt64(2_000_000_000)
        let started = MonotonicClock.now  // the idle clock starts later, with the transfer
        let (ends, end) = AsyncStream<Result<Response, RequestError>>.makeStream()
        let handle = try #require(transport.start(
            .get("never-respond").timeout(idle: .nanoseconds(Int64(limit))), events: TransferEvents { end.yield($0) }))
        try await transport.waitUntilInFlight(1)
        let cancelledInTime = PosixLock(false)
        loop.submit {
            let cancelledAt = MonotonicClock.now
            handle.cancel()  // into the inbox, for the next turn
            cancelledInTime.withLock { $0 = cancelledAt - started < limit }
            // The deadline is at most `limit` after the cancel (nothing moves on the connection).
            while MonotonicClock.now <= cancelledAt + limit + MonotonicClock.resolution { usleep(1_000) }
        }
        let outcome = await ends.first { _ in true }
        // Only a machine that held this test up for the whole limit first makes both outcomes right.
        let allowed: Set<RequestError.Code> = cancelledInTime.withLock { $0 } ? [.cancelled] : [.cancelled, .idleTimedOut]
        #expect(outcome?.failure.map { allowed.contains($0.code) } == true, "\(String(describing: outcome))")
    }

    @Test("a call from a cancelled task fails without sending, and monitors see it start and complete once")
    func cancelledTaskFailsWithoutSending() async throws {
        let listener = try SilentListener()
        let queue = DispatchQueue(label: "cancelledTaskFailsWithoutSending.monitor")
        let seen = Mutex((started: 0, completed: [RequestError.Code?]()))
        let monitor = ClosureEventMonitor(
            queue: queue, requestDidStart: { _, _ in seen.withLock { $0.started += 1 } },
            requestDidComplete: { _, _, result, _ in seen.withLock { $0.completed.append(result.failure?.code) } })
        let client = AsyncClient(transport: Transport(configuration: Configuration(eventMonitors: [monitor])))
        let send = Task { () async throws(RequestError) -> Response in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(.get(listener.url))
        }
        let stream = Task { () async throws(RequestError) -> StreamingResponse in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.stream(.get(listener.url))
        }
        #expect((await send.result.failure as? RequestError)?.code == .cancelled)
        #expect((await stream.result.failure as? RequestError)?.code == .cancelled)
        #expect(listener.connectionAttempts() == 0)
        queue.sync {}
        #expect(seen.withLock { $0.started } == 2)
        #expect(seen.withLock { $0.completed } == [.cancelled, .cancelled])
    }

    @Test func callbackCancelRacingCompletionYieldsExactlyOneCallback() async throws {
        let client = CallbackClient(transport: Fixture.transport(try await Fixture.server()))
        let rounds = 200
        let calls = Mutex([Int](repeating: 0, count: rounds))
        let outcomes = Mutex((succeeded: 0, cancelled: 0))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let remaining = Mutex(rounds)
            for round in 0..<rounds {
                let task = client.send(.get("bytes/\(round * 7)")) { result in
                    calls.withLock { $0[round] += 1 }
                    outcomes.withLock { result.failure?.code == .cancelled ? ($0.cancelled += 1) : ($0.succeeded += 1) }
                    if remaining.withLock({ $0 -= 1; return $0 }) == 0 { done.resume() }
                }
                if round % 3 != 0 {
                    usleep(UInt32(round % 5) * 50)
                    task.cancel()
                }
            }
        }
        // One more request through the same client: the loop applied every cancel above before
        // starting it, and the serial completion queue runs its handler after any handler those
        // produced, so a wrong second callback would be counted by now.
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in
            client.send(.get("echo")) { _ in drained.resume() }
        }
        #expect(calls.withLock { $0 }.allSatisfy { $0 == 1 })
        let (succeeded, cancelled) = outcomes.withLock { $0 }
        #expect(succeeded + cancelled == rounds)
        #expect(succeeded >= rounds / 3)
    }

    @Test(arguments: ClientStyle.allCases)
    func cancelAllCancelsInFlightAndKeepsTheTransportUsable(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        async let first = style.send(.get("never-respond"), through: transport)
        async let second = style.send(.get("never-respond"), through: transport)
        try await transport.waitUntilInFlight(2)
        transport.cancelAll()
        #expect(await first.failure?.code == .cancelled)
        #expect(await second.failure?.code == .cancelled)
        #expect(try await style.send(.get("echo"), through: transport).get().status == .ok)
    }

    @Test(arguments: ClientStyle.allCases)
    func shutdownFinishesInFlightThenRefusesNewRequests(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        async let inFlight = style.send(.get("delay/2000"), through: transport)
        let (closings, closed) = AsyncStream<Void>.makeStream()
        let inFlightAsShutdownBegan = Mutex(0)
        // Shut down from the watching thread the moment the request is in flight: its 2 s on the
        // server then outlast any delay short of a frozen machine, where a test task may wait seconds.
        try await transport.waitUntilInFlight(1, then: {
            transport.shutdown { closed.yield() }
            inFlightAsShutdownBegan.withLock { $0 = transport.inFlightCount }
        })
        #expect(try await inFlight.get().status == .ok)
        #expect(inFlightAsShutdownBegan.withLock { $0 } == 1)  // so it really was in flight
        await closings.first { _ in true }
        let error = await style.send(.get("echo"), through: transport).failure
        #expect(error?.code == .transportShutDown)
        await transport.shutdown()  // a second shutdown returns at once
    }

    @Test func shutdownOfAnIdleTransportCompletes() async {
        await Transport().shutdown()
    }
}
