@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

@Suite struct CancellationAndShutdownTests {
    @Test func cancellingTheTaskCancelsTheTransfer() async throws {
        let client = AsyncClient(transport: Fixture.transport(try await Fixture.server()))
        let transport = client.transport
        let task = Task { () async throws(RequestError) -> Response in try await client.send(.get("never-respond")) }
        try await transport.waitUntilInFlight(1)
        let clock = ContinuousClock()
        let started = clock.now
        task.cancel()
        let error = await task.result.failure as? RequestError
        let latency = clock.now - started
        #expect(error?.code == .cancelled)
        print("async cancellation latency: \(latency)")
        #expect(latency < .seconds(2))  // a hang guard, not a benchmark
    }

    @Test func cancelledTaskFailsWithoutSending() async throws {
        let listener = try SilentListener()
        let client = AsyncClient(transport: Transport())
        let task = Task { () async throws(RequestError) -> Response in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(.get(listener.url))
        }
        #expect((await task.result.failure as? RequestError)?.code == .cancelled)
        #expect(listener.connectionAttempts() == 0)
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
        try await Task.sleep(for: .milliseconds(200))  // room for a wrong second callback to show up
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
        // 2 s in flight: long enough that a starved test task still finds it running.
        async let inFlight = style.send(.get("delay/2000"), through: transport)
        try await transport.waitUntilInFlight(1)
        await transport.shutdown()
        #expect(try await inFlight.get().status == .ok)
        let error = await style.send(.get("echo"), through: transport).failure
        #expect(error?.code == .transportShutDown)
        await transport.shutdown()  // a second shutdown returns at once
    }

    @Test func shutdownOfAnIdleTransportCompletes() async {
        await Transport().shutdown()
    }
}
