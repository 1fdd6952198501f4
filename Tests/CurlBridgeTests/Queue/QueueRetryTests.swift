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
    private static let jitter = 0.5

    /// A queue on `state` whose decisions read a fixed jitter and which records each backoff
    /// delay as the machine decided it; opened off the pool.
    private func queue(
        _ state: URL, _ server: TestServer, policy: RetryPolicy, delays: PosixLock<[Duration]>
    ) async throws -> DownloadQueue {
        try await offThePool {
            try DownloadQueue(
                stateDirectory: state, transport: Fixture.transport(server), options: .init(retryPolicy: policy),
                readings: .fixed(date: Date(), jitter: Self.jitter),
                retryWaitDecided: { _, delay in delays.withLock { $0.append(delay) } }, sync: { fsync($0) })
        }
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
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let delays = PosixLock<[Duration]>([])
        let policy = policy(attempts: 6, base: .milliseconds(20))
        let queue = try await queue(scratch.file("state"), server, policy: policy, delays: delays)
        let id = try await offThePool { try queue.enqueue(.get("\(server.httpURL)flaky?key=\(key)&failures=3&status=503"), to: scratch.file("out")) }
        let finished = try await onWorkerThread { Result { () throws(RequestError) in try queue.wait(for: id) } }.get()
        #expect(finished.state == .finished)
        #expect(String(decoding: try Data(contentsOf: scratch.file("out")), as: UTF8.self) == "ok after 3 failures\n")
        #expect(FlakyRoute.requestCount(key: key) == 4, "three failures, then the success")
        let expected = (1...3).map { RetryStep.backoff(retry: $0, policy: policy, jitter: Self.jitter) }
        #expect(delays.withLock { $0 } == expected)
        #expect(queue.pendingRetryWaits == 0)
        await queue.close()
    }

    @Test("Past the policy's attempts the download fails for good, with the last error")
    func attemptsRunOut() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let delays = PosixLock<[Duration]>([])
        let queue = try await queue(scratch.file("state"), server, policy: policy(attempts: 3, base: .milliseconds(5)), delays: delays)
        let id = try await offThePool { try queue.enqueue(.get("\(server.httpURL)flaky?key=\(key)&failures=9&status=502"), to: scratch.file("out")) }
        let failed = try await onWorkerThread { Result { () throws(RequestError) in try queue.wait(for: id) } }.get()
        #expect(failed.state == .failed && failed.error?.response?.status.code == 502)
        #expect(FlakyRoute.requestCount(key: key) == 3 && delays.withLock { $0.count } == 2)
        await queue.close()
    }

    @Test("A pause during a backoff ends the wait; a resume starts the download at once")
    func pauseDuringBackoff() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let delays = PosixLock<[Duration]>([])
        let queue = try await queue(scratch.file("state"), server, policy: policy(attempts: 3, base: .seconds(3600)), delays: delays)
        let id = try await offThePool { try queue.enqueue(.get("\(server.httpURL)flaky?key=\(key)&failures=1"), to: scratch.file("out")) }
        try await waitFor("an hour's backoff") { queue.pendingRetryWaits == 1 }
        #expect(queue.download(id)?.state == .waiting && delays.withLock { $0 } == [.seconds(1800)])
        try await offThePool { queue.pause(id) }
        #expect(queue.pendingRetryWaits == 0 && queue.download(id)?.state == .paused)
        try await offThePool { queue.resume(id) }
        let finished = try await onWorkerThread { Result { () throws(RequestError) in try queue.wait(for: id) } }.get()
        #expect(finished.state == .finished && FlakyRoute.requestCount(key: key) == 2)
        await queue.close()
    }

    @Test("close() during a backoff returns, releases the directory, and a reopened queue resumes the download", arguments: [false, true])
    func closeDuringBackoff(blocking: Bool) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let delays = PosixLock<[Duration]>([])
        let state = scratch.file("state")
        let queue = try await queue(state, server, policy: policy(attempts: 3, base: .seconds(3600)), delays: delays)
        let id = try await offThePool { try queue.enqueue(.get("\(server.httpURL)flaky?key=\(key)&failures=1"), to: scratch.file("out")) }
        try await waitFor("an hour's backoff") { queue.pendingRetryWaits == 1 }
        if blocking { await onWorkerThread { queue.close() } } else { await queue.close() }
        #expect(queue.pendingRetryWaits == 0)
        let reopened = try await offThePool { try DownloadQueue(stateDirectory: state, transport: Fixture.transport(server)) }
        #expect(reopened.recovery.rejoined == 1)
        let finished = try await onWorkerThread { Result { () throws(RequestError) in try reopened.wait(for: id) } }.get()
        #expect(finished.state == .finished && FlakyRoute.requestCount(key: key) == 2)
        await reopened.close()
    }
}
