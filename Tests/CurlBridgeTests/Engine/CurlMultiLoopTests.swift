@testable import CurlBridge
import Dispatch
import Foundation
import Testing

/// ``CurlMultiLoop``'s own lifecycle, with no transfer: work runs in order on the loop's owner,
/// shutdown comes after the work submitted before it and closes once the delegate is drained,
/// and a caller that finds the loop idle drives it on its own thread.
@Suite struct CurlMultiLoopTests {
    /// A delegate that records the loop's calls, in order; drained only when told.
    final class RecordingDelegate: RequestLoopDelegate, Sendable {
        let events = PosixLock<[String]>([])
        let drained = PosixLock(false)

        var isBusy: Bool { false }
        var isDrained: Bool { drained.withLock { $0 } }
        func turnDidEnd(now: UInt64) -> UInt64? { nil }
        func loopDidFail(_ error: RequestError) { record("failed") }
        func shutdownDidBegin() { record("shutdownDidBegin") }
        func loopWillRest() { record("rest") }
        func loopDidClose() { record("closed") }

        func record(_ event: String) { events.withLock { $0.append(event) } }

        /// The recorded events other than the loop resting between bursts of work.
        var milestones: [String] { events.withLock { $0.filter { $0 != "rest" } } }
    }

    static func loop() throws -> (CurlMultiLoop, RecordingDelegate) {
        let loop = try CurlMultiLoop(label: "CurlMultiLoopTests", limits: ConnectionLimits())
        let delegate = RecordingDelegate()
        loop.delegate = delegate
        return (loop, delegate)
    }

    @Test func workRunsInOrderOnTheLoopsQueue() async throws {
        let (loop, delegate) = try Self.loop()
        let offQueue = PosixLock(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<100 {
                let accepted = loop.submit {
                    if (GuardedQueue.current != .transportLoop) { offQueue.withLock { $0 += 1 } }
                    delegate.record("work \(index)")
                    if index == 99 { done.resume() }
                }
                #expect(accepted)
            }
        }
        #expect(delegate.milestones == (0..<100).map { "work \($0)" })
        #expect(offQueue.withLock { $0 } == 0)
        await Self.close(loop, delegate)
    }

    @Test func shutdownFollowsEarlierWorkAndClosesOnceDrained() async throws {
        let (loop, delegate) = try Self.loop()
        let closings = PosixLock(0)
        await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in
            loop.submit { delegate.record("before shutdown") }
            loop.shutdown {
                closings.withLock { $0 += 1 }
                closed.resume()
            }
            // Shutting down: no new request, but work for requests still in flight runs.
            let newRequest = loop.submit(isNewRequest: true) { delegate.record("new request") }
            let inFlightWork = loop.submit {
                delegate.record("after shutdown")
                delegate.drained.withLock { $0 = true }  // the last request completed
            }
            #expect(!newRequest && inFlightWork)
        }
        #expect(delegate.milestones == ["before shutdown", "shutdownDidBegin", "after shutdown", "closed"])
        #expect(closings.withLock { $0 } == 1)
        // Closed: nothing is accepted, and a second shutdown is told at once.
        let tooLate = loop.submit { delegate.record("too late") }
        #expect(!tooLate)
        let again = PosixLock(false)
        loop.shutdown { again.withLock { $0 = true } }
        #expect(again.withLock { $0 })
        #expect(closings.withLock { $0 } == 1)
    }

    @Test func aCallerDrivesAnIdleLoopOnItsOwnThread() async throws {
        let (loop, delegate) = try Self.loop()
        let outcome = PosixLock<(accepted: Bool, ranOnCaller: Bool, enqueuedFirst: Bool)?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            // Swift Testing runs tests in tasks: drive from a thread of our own, as a blocking caller does.
            Thread {
                let caller = pthread_self()
                let ran = PosixLock<Bool?>(nil)
                let enqueued = PosixLock(false)
                let accepted = loop.submitAndDrive(
                    { ran.withLock { $0 = pthread_equal(pthread_self(), caller) != 0 } },
                    enqueued: { enqueued.withLock { $0 = ran.withLock { $0 } == nil } },
                    until: { ran.withLock { $0 } != nil })
                outcome.withLock { $0 = (accepted, ran.withLock { $0 } ?? false, enqueued.withLock { $0 }) }
                done.resume()
            }.start()
        }
        let result = try #require(outcome.withLock { $0 })
        #expect(result.accepted && result.ranOnCaller && result.enqueuedFirst)
        await Self.close(loop, delegate)
    }

    /// A delegate whose loop stays busy (so each turn would sleep in `curl_multi_poll`, up to a
    /// second with no deadline) until told otherwise; counts the turns.
    final class BusyDelegate: RequestLoopDelegate, Sendable {
        let busy = PosixLock(true)
        let turns = PosixLock(0)

        var isBusy: Bool { busy.withLock { $0 } }
        var isDrained: Bool { !isBusy }
        func turnDidEnd(now: UInt64) -> UInt64? {
            turns.withLock { $0 += 1 }
            return nil
        }
        func loopDidFail(_ error: RequestError) {}
        func shutdownDidBegin() {}
        func loopWillRest() {}
        func loopDidClose() {}
    }

    /// Work the owner submits to itself (a task resumed on the transport's executor starting its
    /// next request) needs no wake-up: work that the turn's work submits runs in the same turn, up
    /// to four rounds. A chain of 2,000 links, each submitting the next, takes 500 turns; with a
    /// wake-up and a turn for each submission it took 2,000. Were the poll not skipped either,
    /// each turn would sleep in it (300 links took 75 s with the skip removed) and the chain would
    /// outlast the hang guard. The links run in order, on the loop's queue.
    @Test(.hangGuard) func workTheOwnerSubmitsToItselfRunsInTheSameTurnWithoutAWakeUp() async throws {
        let loop = try CurlMultiLoop(label: "CurlMultiLoopTests", limits: ConnectionLimits())
        let delegate = BusyDelegate()
        loop.delegate = delegate
        let links = 2_000
        let ran = PosixLock<[Int]>([])
        let offQueue = PosixLock(0)
        let turnsAtEnd = PosixLock(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            @Sendable func link(_ index: Int) {
                if (GuardedQueue.current != .transportLoop) { offQueue.withLock { $0 += 1 } }
                ran.withLock { $0.append(index) }
                if index == links - 1 {
                    turnsAtEnd.withLock { $0 = delegate.turns.withLock { $0 } }
                    return done.resume()
                }
                loop.submit { link(index + 1) }
            }
            loop.submit { link(0) }
        }
        #expect(ran.withLock { $0 } == Array(0..<links))
        #expect(offQueue.withLock { $0 } == 0)
        // The last link runs in the 500th turn, which has not ended yet: 499 ended before it.
        #expect(turnsAtEnd.withLock { $0 } == links / 4 - 1)
        delegate.busy.withLock { $0 = false }
        await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in loop.shutdown { closed.resume() } }
    }

    /// Shuts `loop` down and waits until it closed.
    static func close(_ loop: CurlMultiLoop, _ delegate: RecordingDelegate) async {
        delegate.drained.withLock { $0 = true }
        await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in loop.shutdown { closed.resume() } }
    }
}
