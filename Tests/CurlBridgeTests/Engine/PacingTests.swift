@testable import CurlBridge
import Testing

/// ``IdleClock`` and ``ProgressThrottle``: how silence and progress are paced, as values.
@Suite struct PacingTests {
    static let millisecond: UInt64 = 1_000_000

    @Test func anIdleClockExpiresAfterItsLimitOfSilenceOnceConnected() {
        var clock = IdleClock(limit: 100 * Self.millisecond, now: 0)
        // Connected after 30 ms: the limit counts from then.
        #expect(clock.check(at: 50 * Self.millisecond, connectedAfter: 30 * Self.millisecond) == .checkAgain(at: 130 * Self.millisecond))
        #expect(clock.check(at: 130 * Self.millisecond, connectedAfter: 30 * Self.millisecond) == .expired)
        // A byte at 120 ms moves the deadline.
        clock.noteActivity(at: 120 * Self.millisecond)
        #expect(clock.check(at: 130 * Self.millisecond, connectedAfter: 30 * Self.millisecond) == .checkAgain(at: 220 * Self.millisecond))
    }

    @Test func anIdleClocksLastActivityNeverMovesBack() {
        var clock = IdleClock(limit: 100 * Self.millisecond, now: 0)
        clock.noteActivity(at: 120 * Self.millisecond)
        // A callback timed at its phase's earlier reading (CallbackClock) after a fresher one.
        clock.noteActivity(at: 110 * Self.millisecond)
        #expect(clock.check(at: 215 * Self.millisecond, connectedAfter: 0) == .checkAgain(at: 220 * Self.millisecond))
    }

    @Test func aCallbackClockReadsOncePerPhase() {
        let clock = CallbackClock()
        clock.begin(at: 42)
        #expect(clock.now == 42)  // the turn's moment, for its work phase
        clock.forget()
        let fresh = clock.now
        #expect(fresh > 42)  // read from MonotonicClock, which started long before
        #expect(clock.now == fresh)  // shared by the phase's later callbacks
        clock.forget()
        #expect(clock.now >= fresh)
        // A transfer that resumes mid-phase: a new reading, which the phase's later callbacks share.
        clock.begin(at: 42)
        let resumed = clock.readAfresh()
        #expect(resumed > 42)
        #expect(clock.now == resumed)
    }

    @Test func anIdleClockWaitingForAConnectionStartsAtTheFirstCheckThatFindsItConnected() {
        var clock = IdleClock(limit: 100 * Self.millisecond, now: 0)
        // Still waiting for a connection at 500 ms: the connect timeout's business, not idleness.
        #expect(clock.check(at: 500 * Self.millisecond, connectedAfter: nil) == .checkAgain(at: 600 * Self.millisecond))
        // Found connected at 600 ms (curl says after 10 ms, which a queued transfer cannot be trusted on).
        #expect(clock.check(at: 600 * Self.millisecond, connectedAfter: 10 * Self.millisecond) == .checkAgain(at: 700 * Self.millisecond))
        #expect(clock.check(at: 699 * Self.millisecond, connectedAfter: 10 * Self.millisecond) == .checkAgain(at: 700 * Self.millisecond))
        #expect(clock.check(at: 700 * Self.millisecond, connectedAfter: 10 * Self.millisecond) == .expired)
    }

    @Test func progressIsReportedWhenDueAndMovementIsToldApart() {
        let interval = UInt64(TransferProgress.minimumInterval.roundedUpMilliseconds) * Self.millisecond
        var throttle = ProgressThrottle()
        let first = throttle.note(sent: 0, received: 10, at: interval)
        #expect(first.moved && first.report)
        let soon = throttle.note(sent: 0, received: 20, at: interval + 1)
        #expect(soon.moved && !soon.report)
        let still = throttle.note(sent: 0, received: 20, at: 2 * interval)
        #expect(!still.moved && still.report)
        let uploaded = throttle.note(sent: 5, received: 20, at: 2 * interval + 1)
        #expect(uploaded.moved && !uploaded.report)
    }
}
