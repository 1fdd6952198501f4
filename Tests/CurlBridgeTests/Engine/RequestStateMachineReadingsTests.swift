@testable import CurlBridge
import Foundation
import Testing

/// The wall clock and random draws ``RequestStateMachine`` reads come from the
/// ``RequestStateMachine/Readings`` given at init: fixed, a retry's delay is exact.
@Suite("Request state machine readings")
struct RequestStateMachineReadingsTests {
    typealias Machine = RequestStateMachine
    let now = MachineFixture.now

    /// The delay of the backoff the machine waits after a 503 on attempt `attempts` (sending each
    /// attempt before it and granting the budget), with `readings`.
    private func backoff(after response: Response, attempts: Int, readings: Machine.Readings) -> Duration? {
        let policy = RetryPolicy(maximumAttempts: attempts + 1, baseDelay: .seconds(2), maximumDelay: .seconds(60))
        var machine = Machine(MachineFixture.setup(retries: policy, readings: readings))
        _ = machine.start(at: now)
        var delay: Duration?
        for attempt in 1...attempts {
            _ = machine.sending(MachineFixture.target, at: now)
            _ = machine.transferEnded(.success(response), at: now)
            guard case .wait(let wait, _)? = machine.budgetAnswered(granted: true, at: now).first else { return nil }
            delay = wait
            if attempt < attempts { _ = machine.timerFired(.backoff(attempt: attempt), at: now) }
        }
        return delay
    }

    @Test("a jittered backoff is the fixed jitter times the exponential ceiling, exactly")
    func fixedJitter() {
        let readings = Machine.Readings.fixed(date: MachineFixture.wallClock, jitter: 0.25)
        // Retry 1: 0.25 × 2 s; retry 3: 0.25 × min(60 s, 2 s × 2²).
        #expect(backoff(after: MachineFixture.response(503), attempts: 1, readings: readings) == .milliseconds(500))
        #expect(backoff(after: MachineFixture.response(503), attempts: 3, readings: readings) == .seconds(2))
    }

    @Test("a Retry-After date is read against the fixed wall clock, and jitter does not touch it")
    func fixedWallClock() {
        let readings = Machine.Readings.fixed(date: MachineFixture.wallClock, jitter: 0.9)
        let date = HTTPDate.format(MachineFixture.wallClock.addingTimeInterval(30))
        let response = MachineFixture.response(503, [(.retryAfter, date)])
        #expect(backoff(after: response, attempts: 1, readings: readings) == .seconds(30))
    }

    @Test("copies of a machine do not share their running hop")
    func copiesAreIndependent() {
        var machine = Machine(MachineFixture.setup(consumer: MachineFixture.streaming))
        _ = machine.start(at: now)
        var copy = machine
        _ = copy.sending(MachineFixture.target, at: now)
        _ = copy.receivedHead(MachineFixture.head(200))
        #expect(StateName(copy.state) == .delivering)
        #expect(StateName(machine.state) == .open)
        guard case .running(let hop) = machine.state else { return }
        #expect(hop.target == nil)
    }
}
