@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The queue's retries through a server that fails a number of times, then succeeds: the
/// ``RetryPolicy`` decides each retry and its backoff, and a pause or a close during a backoff
/// ends the wait at once.
@Suite("DownloadQueue: retries with the policy's backoff", .hangGuard, .serialized)
struct QueueRetryTests {
    /// The jitter every decision reads, so that the delays are exact.
    static let jitter = 0.5

    /// A scratch directory, the test server, a fresh key for the flaky route, and a queue on the
    /// directory whose decisions read a fixed jitter and which records each backoff delay as the
    /// machine decided it.
    private struct Harness {
        let scratch: ScratchDirectory
        let server: TestServer
        let key = UUID().uuidString
        let delays = PosixLock<[Duration]>([])
        var state: URL { scratch.file("state") }

        /// Opens a queue on the state directory, off the pool.
        func queue(_ policy: RetryPolicy) async throws -> DownloadQueue {
            try await offThePool { [state, delays] in
                try DownloadQueue(
                    stateDirectory: state, transport: Fixture.transport(server), options: .init(retryPolicy: policy),
                    readings: { [opened = Date()] in (opened, QueueRetryTests.jitter) },
                    retryWaitDecided: { _, delay in delays.withLock { $0.append(delay) } }, sync: { fsync($0) })
            }
        }

        /// Enqueues a download from the flaky route that fails `failures` times with `status`.
        func enqueue(_ queue: DownloadQueue, failures: Int, status: Int = 503) async throws -> UInt64 {
            try await offThePool { [key, scratch] in
                try queue.enqueue(.get("\(server.httpURL)flaky?key=\(key)&failures=\(failures)&status=\(status)"), to: scratch.file("out"))
            }
        }

        /// Blocks, off the pool, until download `id` settles.
        func wait(_ queue: DownloadQueue, for id: UInt64) async throws -> QueuedDownload {
            try await onWorkerThread { Result { () throws(RequestError) in try queue.wait(for: id) } }.get()
        }
    }

    private func harness() async throws -> Harness {
        Harness(scratch: try ScratchDirectory(), server: try await Fixture.server())
    }

    /// The queue's default policy with `attempts` tries and backoff from `base`.
    private func policy(attempts: Int, base: Duration) -> RetryPolicy {
        var policy = DownloadQueue.Options.defaultRetryPolicy
        policy.maximumAttempts = attempts
        policy.baseDelay = base
        policy.maximumDelay = base * 8
        return policy
    }

    @Test("Each failure waits the policy's backoff, then the download resumes; the attempts are the policy's")
    func failuresThenSuccess() async throws {
        let harness = try await harness()
        defer { harness.scratch.remove() }
        let policy = policy(attempts: 6, base: .milliseconds(20))
        let queue = try await harness.queue(policy)
        let finished = try await harness.wait(queue, for: try await harness.enqueue(queue, failures: 3))
        #expect(finished.state == .finished)
        #expect(String(decoding: try Data(contentsOf: harness.scratch.file("out")), as: UTF8.self) == "ok after 3 failures\n")
        #expect(FlakyRoute.requestCount(key: harness.key) == 4, "three failures, then the success")
        let expected = (1...3).map { RetryStep.backoff(retry: $0, policy: policy, jitter: Self.jitter) }
        #expect(harness.delays.withLock { $0 } == expected)
        #expect(queue.pendingRetryWaits == 0)
        await queue.close()
    }

    @Test("Past the policy's attempts the download fails for good, with the last error")
    func attemptsRunOut() async throws {
        let harness = try await harness()
        defer { harness.scratch.remove() }
        let queue = try await harness.queue(policy(attempts: 3, base: .milliseconds(5)))
        let failed = try await harness.wait(queue, for: try await harness.enqueue(queue, failures: 9, status: 502))
        #expect(failed.state == .failed && failed.error?.response?.status.code == 502)
        #expect(FlakyRoute.requestCount(key: harness.key) == 3 && harness.delays.withLock { $0.count } == 2)
        await queue.close()
    }

    @Test("A pause during a backoff ends the wait; a resume starts the download at once")
    func pauseDuringBackoff() async throws {
        let harness = try await harness()
        defer { harness.scratch.remove() }
        let queue = try await harness.queue(policy(attempts: 3, base: .seconds(3600)))
        let id = try await harness.enqueue(queue, failures: 1)
        try await waitFor("an hour's backoff") { queue.pendingRetryWaits == 1 }
        #expect(queue.download(id)?.state == .waiting && harness.delays.withLock { $0 } == [.seconds(1800)])
        try await offThePool { queue.pause(id) }
        #expect(queue.pendingRetryWaits == 0 && queue.download(id)?.state == .paused)
        try await offThePool { queue.resume(id) }
        let finished = try await harness.wait(queue, for: id)
        #expect(finished.state == .finished && FlakyRoute.requestCount(key: harness.key) == 2)
        await queue.close()
    }

    @Test("close() during a backoff returns, releases the directory, and a reopened queue resumes the download", arguments: [false, true])
    func closeDuringBackoff(blocking: Bool) async throws {
        let harness = try await harness()
        defer { harness.scratch.remove() }
        let queue = try await harness.queue(policy(attempts: 3, base: .seconds(3600)))
        let id = try await harness.enqueue(queue, failures: 1)
        try await waitFor("an hour's backoff") { queue.pendingRetryWaits == 1 }
        if blocking { await onWorkerThread { queue.close() } } else { await queue.close() }
        #expect(queue.pendingRetryWaits == 0)
        let reopened = try await harness.queue(DownloadQueue.Options.defaultRetryPolicy)
        #expect(reopened.recovery.rejoined == 1)
        let finished = try await harness.wait(reopened, for: id)
        #expect(finished.state == .finished && FlakyRoute.requestCount(key: harness.key) == 2)
        await reopened.close()
    }

    @Test("A backoff timer of an earlier wait that runs out late starts nothing; the download starts once, when its current wait ends")
    func staleTimerStartsNothing() async throws {
        let harness = try await harness()
        defer { harness.scratch.remove() }
        let queue = try await harness.queue(policy(attempts: 3, base: .seconds(3600)))
        let id = try await harness.enqueue(queue, failures: 2)
        try await waitFor("the first backoff") { queue.pendingRetryWaits == 1 }
        let earlier = try #require(queue.state.withLock { $0.machine.entries[id]?.retryTimer })
        try await offThePool { queue.pause(id) }
        try await offThePool { queue.resume(id) }
        try await waitFor("the second failure's backoff") {
            FlakyRoute.requestCount(key: harness.key) == 2 && queue.pendingRetryWaits == 1
        }
        let current = try #require(queue.state.withLock { $0.machine.entries[id]?.retryTimer })
        #expect(current != earlier)
        // The earlier wait's timer had begun to run when the pause cancelled it: it runs out now.
        try await offThePool { queue.retryWaitRanOut(id, timer: earlier) }
        #expect(queue.download(id)?.state == .waiting && queue.pendingRetryWaits == 1)
        #expect(queue.state.withLock { $0.machine.entries[id]?.retryTimer } == current)
        #expect(FlakyRoute.requestCount(key: harness.key) == 2, "nothing started")
        try await offThePool { queue.retryWaitRanOut(id, timer: current) }
        let finished = try await harness.wait(queue, for: id)
        #expect(finished.state == .finished && FlakyRoute.requestCount(key: harness.key) == 3, "started once")
        #expect(queue.pendingRetryWaits == 0)
        await queue.close()
    }
}
