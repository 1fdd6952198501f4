@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// ``DownloadQueue/close()`` while a download's start is still building its request (a48a515): a
/// close waits for every started download, so a start that ends without a transfer must finish it.
@Suite("DownloadQueue: close() during a start that cannot send", .hangGuard, .serialized)
struct QueueCloseDuringStartTests {
    @Test("A close waiting for a start whose request cannot be built returns once the download is paused; a reopened queue finds it paused")
    func closeReturnsWhenTheStartCannotSend() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let state = scratch.file("state")
        let url = server.httpURL.absoluteString + "resource/1000"
        // A download an earlier process enqueued and paused: this process starts it with the
        // program's request.
        try writeJournal(
            [try QueueJournalLine(id: 1, url: url, destination: scratch.file("file.bin").path).text, #"{"operation":"pause","id":1}"#],
            in: state)
        let asked = DispatchSemaphore(value: 0)
        let answer = DispatchSemaphore(value: 0)
        // Told of the start, the program answers only once close() waits for it, and with a POST,
        // which the queue cannot send.
        let rejoined: DownloadQueue.RejoinedRequest = { _ in
            asked.signal()
            answer.wait()
            return .post(url)
        }
        let queue = try await offThePool {
            try DownloadQueue(stateDirectory: state, transport: Fixture.transport(server), rejoinedRequest: rejoined)
        }
        #expect(queue.download(1)?.state == .paused)
        let resuming = Task { await onWorkerThread { queue.resume(1) } }
        await onWorkerThread { asked.wait() }
        let closing = Task { await queue.close() }
        try await waitFor("close() to wait for the start") { queue.state.withLock { $0.phase == .closing } }
        #expect(queue.download(1)?.state == .running, "the start the close waits for")
        answer.signal()
        await closing.value
        await resuming.value
        #expect(queue.download(1)?.state == .paused && queue.download(1)?.error?.code == .invalidMethod)
        let reopened = try await offThePool { try DownloadQueue(stateDirectory: state, transport: Fixture.transport(server)) }
        #expect(reopened.download(1)?.state == .paused)
        await reopened.close()
    }
}
