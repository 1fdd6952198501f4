@testable import CurlBridge
import Foundation
import Testing

/// The queue's decisions as a value, without I/O.
@Suite("DownloadQueue: decisions as values")
struct DownloadQueueStateTests {
    private let destination = URL(fileURLWithPath: "/tmp/queue-state/file")

    private func resume(_ bytes: Int64) -> ResumeData {
        ResumeData(
            url: "http://a/f", validator: .entityTag("\"1\""), bytesOnDisk: bytes,
            partialFileURL: URL(fileURLWithPath: "/tmp/queue-state/.file.x.curlbridge-partial"), destination: destination, expectedLength: 100)
    }

    private func enqueued(_ count: Int, concurrency: Int = 2) -> (DownloadQueueState, [DownloadQueueState.Action]) {
        var state = DownloadQueueState.fixture(concurrency: concurrency, failures: 2)
        var actions: [DownloadQueueState.Action] = []
        for _ in 0..<count {
            actions += state.enqueue(url: StoredURL("http://a/f"), headers: [], destination: destination, original: .get("http://a/f"))?.1 ?? []
        }
        return (state, actions)
    }

    private func starts(_ actions: [DownloadQueueState.Action]) -> [UInt64] {
        actions.compactMap { if case .start(let id) = $0 { id } else { nil } }
    }

    @Test("Enqueueing journals first and starts no more than the concurrency limit")
    func concurrencyLimit() {
        let (state, actions) = enqueued(3)
        #expect(starts(actions) == [1, 2])
        #expect(state.entries[3]?.download.state == .waiting)
        if case .journal(let record)? = actions.first { #expect(record.operation == .enqueue) } else { Issue.record("journal first") }
    }

    @Test("A transient failure waits out the policy's backoff, then resumes from its bytes, until too many; a finished download frees its slot")
    func endings() {
        var (state, _) = enqueued(3)
        let policy = RetryPolicy.queue(failures: 2)
        let again = state.ended(1, .failure(RequestError(.connectionLost, "cut").resumable(with: resume(40))))
        let firstWait = RetryStep.backoff(retry: 1, policy: policy, jitter: 0.5)
        #expect(again.contains(.retryAfter(id: 1, delay: firstWait, timer: 1)))
        #expect(starts(again) == [3], "the backing-off download holds no slot")
        #expect(state.entries[1]?.download.bytesOnDisk == 40 && state.entries[1]?.resume == resume(40))
        _ = state.pause(3)
        #expect(starts(state.ended(3, .failure(RequestError(.cancelled, "paused")))).isEmpty, "1 waits out its backoff")
        #expect(state.retryWaitEnded(1, timer: 7).isEmpty, "a timer that is not the download's changes nothing")
        #expect(starts(state.retryWaitEnded(1, timer: 1)) == [1])
        let second = state.ended(1, .failure(RequestError(.connectionLost, "cut")))
        #expect(second.contains(.retryAfter(id: 1, delay: RetryStep.backoff(retry: 2, policy: policy, jitter: 0.5), timer: 2)))
        _ = state.retryWaitEnded(1, timer: 2)
        #expect(state.entries[1]?.download.state == .running)
        let failed = state.ended(1, .failure(RequestError(.connectionLost, "cut")))
        #expect(state.entries[1]?.download.state == .failed)
        #expect(failed.contains { if case .journal(let record) = $0 { record.operation == .fail } else { false } })
        #expect(starts(failed).isEmpty && starts(state.resume(3)) == [3])
        let finished = state.ended(2, .success(DownloadResponse(
            status: .ok, headerFields: [:], fileURL: destination, bytesWritten: 100, resumedFromOffset: 0, sha256: "ab", url: "http://a/f",
            httpVersion: .http1_1, metrics: .fromCache(.bypassed), redirects: [], attempts: [])))
        #expect(state.entries[2]?.download.state == .finished && state.entries[2]?.download.sha256 == "ab")
        #expect(finished.contains { if case .journal(let record) = $0 { record.operation == .finish && record.bytes == 100 } else { false } })
        #expect(starts(finished).isEmpty)
    }

    @Test("A full disk pauses every download that is not final, keeping their bytes")
    func diskFull() {
        var (state, _) = enqueued(3)
        let full = RequestError(.fileIO, "No space left on device", underlying: POSIXError(.ENOSPC)).resumable(with: resume(60))
        let actions = state.ended(1, .failure(full))
        #expect(state.entries.values.map(\.download.state).sorted { $0.rawValue < $1.rawValue } == [.paused, .paused, .running])
        #expect(actions.contains(.stop(id: 2)), "the running one stops; its end pauses it")
        #expect(actions.contains(.emit(.diskFull("No space left on device"))))
        #expect(starts(actions).isEmpty)
        _ = state.ended(2, .failure(RequestError(.cancelled, "stopped")))
        #expect(state.entries[2]?.download.state == .paused)
        let resumed = state.ids.flatMap { state.resume($0) }
        #expect(starts(resumed) == [1, 2])
    }

    @Test("Closing stops the running downloads, whose ends leave them waiting with their bytes; nothing starts again")
    func closing() {
        var (state, _) = enqueued(3)
        #expect(state.close() == [.stop(id: 1), .stop(id: 2)])
        let first = state.ended(1, .failure(RequestError(.cancelled, "closing").resumable(with: resume(30))))
        #expect(state.entries[1]?.download.state == .waiting && state.entries[1]?.resume?.bytesOnDisk == 30)
        #expect(first.contains(.journal(.init(operation: .checkpoint, id: 1, resume: resume(30)))))
        #expect(starts(first).isEmpty, "download 3 waits for the next queue")
        _ = state.ended(2, .failure(RequestError(.connectionLost, "cut")))
        #expect(state.entries[2]?.download.state == .waiting && state.running == 0)
        #expect(state.resume(3).isEmpty && starts(state.schedule()).isEmpty)
    }

    @Test("Pause, resume and cancel: a running download stops first, a waiting one changes at once")
    func callerActions() {
        var (state, _) = enqueued(4)
        #expect(state.pause(1) == [.journal(.init(operation: .pause, id: 1)), .stop(id: 1)])
        _ = state.ended(1, .failure(RequestError(.cancelled, "paused").resumable(with: resume(30))))
        #expect(state.entries[1]?.download.state == .paused && state.entries[1]?.resume?.bytesOnDisk == 30)
        #expect(state.entries[3]?.download.state == .running, "the pause freed a slot")
        #expect(state.cancel(3) == [.journal(.init(operation: .cancel, id: 3)), .stop(id: 3)])
        #expect(state.cancel(4).contains(.emit(.changed(4))))
        #expect(state.entries[4]?.download.state == .cancelled)
        let cancelPaused = state.cancel(1)
        #expect(cancelPaused.contains(.discard(resume(30))), "a cancelled download's partial file is deleted")
    }

    @Test("The compacted journal replays to the same downloads")
    func compactionRoundTrip() {
        var (state, _) = enqueued(4)
        _ = state.checkpoint(1, resume(50))
        _ = state.pause(2)
        _ = state.ended(2, .failure(RequestError(.cancelled, "paused").resumable(with: resume(20))))
        _ = state.cancel(4)
        var replayed = DownloadQueueState.fixture(concurrency: 2, failures: 2)
        replayed.replay(state.compacted)
        #expect(replayed.entries[1]?.download.state == .waiting, "a download that was running waits again")
        #expect(replayed.entries[1]?.resume == resume(50))
        #expect(replayed.entries[2]?.download.state == .paused && replayed.entries[2]?.download.bytesOnDisk == 20)
        #expect(replayed.entries[3]?.download.state == .waiting)
        #expect(replayed.entries[4]?.download.state == .cancelled)
        #expect(replayed.nextID == 5)
    }

    @Test("The last id is UInt64.max - 1: after it, enqueue refuses instead of overflowing")
    func identifiersRunOut() {
        var state = DownloadQueueState.fixture(concurrency: 1, failures: 1)
        state.replay([.init(operation: .enqueue, id: UInt64.max - 1, url: "http://a/f", destination: "/tmp/queue-state/file")])
        #expect(state.nextID == UInt64.max)
        #expect(state.enqueue(url: StoredURL("http://a/f"), headers: [], destination: destination, original: .get("http://a/f")) == nil)
    }

    @Test("A checkpoint is journaled with the download's journaled URL, not the one the transfer used")
    func checkpointsKeepNoSecrets() {
        var state = DownloadQueueState.fixture(concurrency: 1, failures: 1)
        _ = state.enqueue(
            url: StoredURL("http://user:pw@a/f?token=t", keepsQuery: false), headers: [], destination: destination,
            original: .get("http://user:pw@a/f?token=t"))
        var sent = resume(40)
        sent.url = "http://user:pw@a/f?token=t"
        let actions = state.checkpoint(1, sent)
        guard case .journal(let record)? = actions.first else {
            Issue.record("a checkpoint is journaled: \(actions)")
            return
        }
        #expect(record.resume?.url == "http://a/f")
        #expect(state.entries[1]?.omitsQuery == true)
    }

    @Test("A download that cannot start is paused with the reason, and frees its slot")
    func couldNotStart() {
        var (state, _) = enqueued(3, concurrency: 1)
        let actions = state.couldNotStart(1, RequestError(.invalidURL, "no request"))
        #expect(state.entries[1]?.download.state == .paused && state.entries[1]?.download.error?.code == .invalidURL)
        #expect(actions.first == .journal(.init(operation: .pause, id: 1)))
        #expect(starts(actions) == [2])
    }
}
