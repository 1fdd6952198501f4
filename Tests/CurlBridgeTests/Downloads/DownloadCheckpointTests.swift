import CurlBridge
import CurlBridgeTestServer
import Dispatch
import Foundation
import Synchronization
import Testing

/// What a program keeping its own record of downloads uses, as a ``DownloadQueue`` does, through
/// the public API alone: checkpoints of a callback download, the blocking policy's refusal, the
/// partial-file name.
@Suite("Public download checkpoints and the blocking refusal", .hangGuard)
struct DownloadCheckpointTests {
    @Test("A checkpointed download reports flushed bytes every interval, then the whole file before the move")
    func checkpointsEveryInterval() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let destination = scratch.file("big.bin")
        let checkpoints = LockedList<ResumeData>()
        let client = CallbackClient(transport: Fixture.transport(server))
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<DownloadResponse, RequestError>, Never>) in
            client.download(
                .get("resource/300000"), to: destination, checkpoint: DownloadCheckpoint(every: 65_536) { checkpoints.append($0) }
            ) { continuation.resume(returning: $0) }
        }
        #expect(try result.get().bytesWritten == 300_000)
        let bytes = checkpoints.values.map(\.bytesOnDisk)
        #expect(bytes.count >= 4 && bytes.last == 300_000, "\(bytes)")
        #expect(zip(bytes, bytes.dropFirst()).allSatisfy { $0 + 65_536 <= $1 || $1 == 300_000 }, "at least an interval apart: \(bytes)")
        #expect(checkpoints.values.allSatisfy { PartialFileName(of: destination).recognises($0.partialFileURL.lastPathComponent) })
        #expect(FileManager.default.contents(atPath: destination.path) == resourceBytes(count: 300_000))
    }

    @Test("An interval below one byte is one byte")
    func intervalAtLeastOne() {
        #expect(DownloadCheckpoint(every: 0) { _ in }.interval == 1)
    }

    @Test("The blocking policy refuses a wait inside a task unless allowed, and allows one on a worker thread")
    func blockingRefusal() async {
        #expect(BlockingClient.Policy().refusal()?.contains("Swift concurrency task") == true)
        #expect(BlockingClient.Policy(allowsInsideTasks: true).refusal() == nil)
        let onWorker = await onWorkerThread { BlockingClient.Policy().refusal() }
        #expect(onWorker == nil)
    }
}

/// A list appended from any thread.
private final class LockedList<Element: Sendable>: Sendable {
    private let stored = Mutex<[Element]>([])

    func append(_ element: Element) { stored.withLock { $0.append(element) } }
    var values: [Element] { stored.withLock { $0 } }
}
