@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The queue flushes its journal outside its lock: while a flush waits for the disk, the queue's
/// state can still be read, and the call that made the record returns only once it is flushed.
@Suite("DownloadQueue: a journal flush holds no reader", .hangGuard)
struct QueueJournalFlushTests {
    /// A stand-in for `fsync` that the test can hold: a flush made while held waits until released.
    final class FlushGate: Sendable {
        private let state = PosixLock((holding: false, waiting: 0))
        private let released = DispatchSemaphore(value: 0)

        /// Flushes made from now on wait for ``release()``.
        func hold() { state.withLock { $0.holding = true } }

        /// How many flushes are waiting.
        var waiting: Int { state.withLock { $0.waiting } }

        /// Lets every waiting flush (and every later one) through.
        func release() {
            let waiting = state.withLock { state in
                state.holding = false
                return state.waiting
            }
            for _ in 0..<waiting { released.signal() }
        }

        /// The `fsync` the queue is given.
        var sync: @Sendable (Int32) -> Int32 {
            { [self] descriptor in
                let holds = state.withLock { state in
                    if state.holding { state.waiting += 1 }
                    return state.holding
                }
                if holds { released.wait() }
                return fsync(descriptor)
            }
        }
    }

    @Test func readersDoNotWaitForAFlushAndThePauseWaitsForIt() async throws {
        let scratch = try DownloadQueueTests.Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let gate = FlushGate()
        let queue = try await offThePool {
            try DownloadQueue(stateDirectory: scratch.state, transport: Fixture.transport(server), sync: gate.sync)
        }
        // An answer a minute away: the download is still running when it is paused.
        let url = "\(server.httpURL)delay/60000"
        let id = try await offThePool { try queue.enqueue(.get(url), to: scratch.file("held")) }

        gate.hold()
        let paused = PosixLock(false)
        Thread {
            queue.pause(id)
            paused.withLock { $0 = true }
        }.start()
        try await waitFor("the pause's flush to wait for the disk") { gate.waiting > 0 }

        // Readers do not wait for the disk (they would wait for the release, which comes after).
        let seen = await onWorkerThread { (queue.downloads.map(\.id), queue.progress.downloads) }
        #expect(seen.0 == [id] && seen.1 == 1)
        #expect(!paused.withLock { $0 }, "the pause returned before its record was flushed")

        gate.release()
        try await waitFor("the pause to return once flushed") { paused.withLock { $0 } }
        try await waitFor("the download to be paused") { queue.downloads.first?.state == .paused }
        await queue.close()
    }
}
