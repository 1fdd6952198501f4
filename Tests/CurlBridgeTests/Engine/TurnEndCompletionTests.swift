@testable import CurlBridge
import Testing

/// ``RequestRegistry`` holds the completions of a loop's turn and delivers them together when the
/// turn ends: each exactly once, in the order the requests completed, none left behind when the
/// loop rests or closes. Driven here as the loop drives it, on one thread, with an engine that has
/// nothing in flight.
@Suite struct TurnEndCompletionTests {
    /// An engine with nothing in flight, which counts how often the loop's hooks reach it.
    final class IdleEngine: TransferEngine {
        let inFlight = TransferCounter()
        var isBusy: Bool { false }
        private(set) var expiries = 0
        /// What expiring does (ends a request, as an idle timeout does).
        var onExpire: () -> Void = {}
        func begin(_ request: PreparedRequest, id: UInt64, receiver: any TransferReceiver) {}
        func stop(_ id: UInt64) -> TransferProgress? { nil }
        func pauseReceiving(_ id: UInt64) {}
        func resumeReceiving(_ id: UInt64) {}
        func resumeSending(_ id: UInt64) {}
        func expire(at now: UInt64) -> UInt64? {
            expiries += 1
            onExpire()
            return nil
        }
        func failAll(_ error: RequestError) {}
        func rest(closed: Bool) {}
    }

    /// What the completion handlers saw, in order, from whichever thread delivered them.
    final class Deliveries: Sendable {
        private let seen = PosixLock<[String]>([])
        var all: [String] { seen.withLock { $0 } }
        func handler(_ name: String) -> @Sendable (Result<Response, RequestError>) -> Void {
            { result in
                let outcome = switch result {
                case .success(let response): "\(response.status.code)"
                case .failure(let error): "\(error.code)"
                }
                self.seen.withLock { $0.append("\(name) \(outcome)") }
            }
        }
    }

    private let engine = IdleEngine()
    private let deliveries = Deliveries()

    private static func response(_ status: Int) -> Result<Response, RequestError> {
        .success(MachineFixture.response(status))
    }

    @Test func aTurnsCompletionsWaitForItsEndAndArriveInTheOrderTheyCompleted() {
        let registry = RequestRegistry(engine: engine)
        registry.complete(deliveries.handler("first"), with: Self.response(200))
        registry.complete(deliveries.handler("second"), with: .failure(RequestError(.cancelled, "cancelled")))
        registry.complete(deliveries.handler("third"), with: Self.response(404))
        #expect(deliveries.all.isEmpty)  // nothing reaches a caller in the middle of a turn
        _ = registry.turnDidEnd(now: 0)
        #expect(deliveries.all == ["first 200", "second cancelled", "third 404"])
        #expect(engine.expiries == 1)
        _ = registry.turnDidEnd(now: 1)
        #expect(deliveries.all.count == 3)  // each exactly once: the next turn delivers nothing again
    }

    @Test func aCompletionAddedWhileTheTurnsAreDeliveredIsDeliveredInTheSameTurn() {
        // The handler runs on this thread, inside `turnDidEnd`, as a loop's would on the loop.
        nonisolated(unsafe) let registry = RequestRegistry(engine: engine)
        let late = deliveries.handler("late")
        let first = deliveries.handler("first")
        registry.complete({ result in
            first(result)
            registry.complete(late, with: Self.response(204))  // a handler whose work completes another
        }, with: Self.response(200))
        _ = registry.turnDidEnd(now: 0)
        #expect(deliveries.all == ["first 200", "late 204"])
    }

    @Test func aTurnThatFinishesManyHandsThemOverInBatchesOfTheLargestBatch() {
        let registry = RequestRegistry(engine: engine)
        let batch = RequestRegistry.largestBatch
        for number in 1...batch - 1 { registry.complete(deliveries.handler("\(number)"), with: Self.response(200)) }
        #expect(deliveries.all.isEmpty)
        registry.complete(deliveries.handler("\(batch)"), with: Self.response(200))
        #expect(deliveries.all.count == batch)  // the batch is full: handed over without waiting for the turn's end
        #expect(deliveries.all.first == "1 200" && deliveries.all.last == "\(batch) 200")
        registry.complete(deliveries.handler("next"), with: Self.response(200))
        #expect(deliveries.all.count == batch)
        _ = registry.turnDidEnd(now: 0)
        #expect(deliveries.all.count == batch + 1 && deliveries.all.last == "next 200")
    }

    @Test func aRequestThatExpiringEndsIsDeliveredInTheSameTurn() {
        // An idle timeout ends its request inside `turnDidEnd`, after the turn's completions were
        // delivered: with no turn after it (a blocking caller letting go of an idle loop), it
        // would wait for one forever.
        let registry = RequestRegistry(engine: engine)
        let timedOut = deliveries.handler("timed out")
        engine.onExpire = { registry.complete(timedOut, with: .failure(RequestError(.idleTimedOut, "idle"))) }
        registry.complete(deliveries.handler("finished"), with: Self.response(200))
        _ = registry.turnDidEnd(now: 0)
        #expect(deliveries.all == ["finished 200", "timed out idleTimedOut"])
    }

    @Test func aHandlerThatFillsABatchWhileItsOwnIsDeliveredRunsEachCompletionOnce() {
        nonisolated(unsafe) let registry = RequestRegistry(engine: engine)
        let batch = RequestRegistry.largestBatch
        let first = deliveries.handler("first")
        let others = (1...batch).map { deliveries.handler("\($0)") }
        registry.complete(deliveries.handler("before"), with: Self.response(200))
        registry.complete({ result in
            first(result)
            // This handler's work completes a batch of other requests while its own is delivered.
            for other in others { registry.complete(other, with: Self.response(200)) }
        }, with: Self.response(200))
        registry.complete(deliveries.handler("after"), with: Self.response(200))
        _ = registry.turnDidEnd(now: 0)
        #expect(deliveries.all == ["before 200", "first 200", "after 200"] + (1...batch).map { "\($0) 200" })
    }

    @Test(arguments: [false, true])
    func noCompletionIsLeftBehindWhenTheLoopRestsOrCloses(closes: Bool) {
        let registry = RequestRegistry(engine: engine)
        registry.complete(deliveries.handler("only"), with: Self.response(200))
        if closes { registry.loopDidClose() } else { registry.loopWillRest() }
        #expect(deliveries.all == ["only 200"])
    }
}
