@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The durable download queue through the test server: events in the three styles over
/// HTTP/1.1 and HTTP/2, a queue reopened on its state directory, a changed resource, secrets kept
/// out of the journal, cancel and pause.
@Suite("DownloadQueue: downloads that survive the process", .hangGuard, .serialized)
struct DownloadQueueTests {
    /// A scratch directory with a state directory and an output directory in it.
    /// The queue's state directory and its downloads' directory, each in a scratch directory of
    /// its own, so that the downloads' one lists only downloads.
    struct Scratch {
        private let states: ScratchDirectory
        private let outputs: ScratchDirectory

        init() throws {
            states = try ScratchDirectory()
            outputs = try ScratchDirectory()
        }

        /// The state directory, which the queue creates.
        var state: URL { states.file("state") }
        func file(_ name: String) -> URL { outputs.file(name) }
        func remove() {
            states.remove()
            outputs.remove()
        }

        /// Files in the output directory, hidden partial files included.
        var outputNames: [String] { outputs.contents }
    }

    /// A queue on `scratch`'s state directory that checkpoints every 64 KiB, opened off the pool.
    private func checkpointingQueue(_ scratch: Scratch, _ server: TestServer) async throws -> DownloadQueue {
        try await offThePool { try DownloadQueue(
            stateDirectory: scratch.state, transport: Fixture.transport(server), options: .init(checkpointInterval: 65_536)) }
    }

    private func url(_ server: TestServer, tls: Bool, _ size: Int, key: String, _ extra: String = "") -> String {
        "\(tls ? server.httpsURL : server.httpURL)resource/\(size)?count=\(key)\(extra)"
    }

    @Test("Every download finishes byte-identical, reported in each style", arguments: ClientStyle.allCases)
    func downloadsFinishInEveryStyle(style: ClientStyle) async throws {
        for tls in [false, true] {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let server = try await Fixture.server()
            let queue = try await offThePool { try DownloadQueue(
                stateDirectory: scratch.state, transport: Fixture.transport(server, tls: tls), options: .init(maximumConcurrentDownloads: 2)) }
            let sizes = [300_000, 1_000_000, 1]
            let key = UUID().uuidString
            let events = queue.events
            let callbacks = PosixLock<[QueuedDownload]>([])
            queue.onEvent(queue: DispatchQueue(label: "test")) { event in
                if case .changed(let download) = event, download.state.isFinal { callbacks.withLock { $0.append(download) } }
            }
            let ids = try await offThePool { try sizes.enumerated().map { index, size in
                try queue.enqueue(.get(url(server, tls: tls, size, key: key)), to: scratch.file("f\(index)"))
            } }

            let finished: [QueuedDownload]
            switch style {
            case .async:
                var seen: [UInt64: QueuedDownload] = [:]
                for await event in events {
                    if case .changed(let download) = event, download.state.isFinal { seen[download.id] = download }
                    if seen.count == ids.count { break }
                }
                finished = ids.compactMap { seen[$0] }
            case .callback:
                try await waitFor("three final callbacks") { callbacks.withLock { $0.count } == 3 }
                finished = callbacks.withLock { $0 }.sorted { $0.id < $1.id }
            case .blocking:
                finished = try await onWorkerThread { Result { () throws(RequestError) in try queue.waitForAll() } }.get()
            }

            #expect(finished.map(\.state) == [.finished, .finished, .finished], "tls: \(tls)")
            for (index, size) in sizes.enumerated() {
                expectSameBytes(try? Data(contentsOf: scratch.file("f\(index)")), resourceBytes(count: size))
                #expect(finished[index].sha256 == sha256Hex(resourceBytes(count: size)), "tls: \(tls)")
            }
            #expect(queue.progress == DownloadQueueProgress(downloads: 3, finished: 3, bytesOnDisk: 1_300_001, expectedBytes: 1_300_001))
            #expect(TestServer.requestCount(key: key) == 3)
        }
    }

    /// Whether download `id` of `queue` journaled the last checkpoint it makes before the server
    /// stalls at 300,000 bytes. A checkpoint comes at the end of the piece that completes an
    /// interval (64 KiB) since the last one, and pieces need not divide the interval (one is
    /// short by the head's bytes, a loaded machine reads short ones), so the checkpoints drift
    /// from the multiples of 64 KiB and a fourth may come only after the stall (see
    /// `CheckpointSpacingTests`). What holds whatever the pieces: once the 300,000 bytes are
    /// written, less than an interval of them is past the last checkpoint, which is then above
    /// 234,464 bytes. The rest of the file, from any point a pause or close keeps, is then shorter
    /// than the stall, so a rejoined request never stalls.
    private func hasLastCheckpointBeforeTheStall(_ queue: DownloadQueue, _ id: UInt64) -> Bool {
        (queue.download(id)?.bytesOnDisk ?? 0) > 300_000 - 65_536
    }

    /// A queue with a download stopped after its first checkpoints and paused; closed before it returns.
    /// Returns its id and the bytes its pause kept (all it received: the server stalls after 300,000).
    private func pausedDownload(_ scratch: Scratch, _ server: TestServer, key: String) async throws -> (UInt64, Int64) {
        let queue = try await checkpointingQueue(scratch, server)
        let id = try await offThePool { try queue.enqueue(.get(url(server, tls: false, 500_000, key: key, "&stall-after=300000")), to: scratch.file("big")) }
        try await waitFor("the last checkpoint before the stall") { hasLastCheckpointBeforeTheStall(queue, id) }
        try await waitFor("the server's 300,000 bytes, which a test can then count on") { TestServer.bytesServed(key: key) == 300_000 }
        try await offThePool { queue.pause(id) }
        try await waitFor("the pause") { queue.download(id)?.state == .paused }
        let kept = queue.download(id)?.bytesOnDisk ?? 0
        await queue.close()
        return (id, kept)
    }

    /// Opens a queue on `scratch`'s directory, checks what it rejoined, resumes download `id` and
    /// waits for it; the queue is closed on return (one queue at a time on a directory).
    private func resumeInAReopenedQueue(_ scratch: Scratch, _ server: TestServer, id: UInt64, expectingKept kept: Int64?) async throws -> QueuedDownload {
        let queue = try await offThePool { try DownloadQueue(stateDirectory: scratch.state, transport: Fixture.transport(server)) }
        #expect(queue.recovery.rejoined == 1)
        #expect(queue.download(id)?.state == .paused)
        if let kept { #expect(kept >= 196_608 && queue.download(id)?.bytesOnDisk == kept) }
        try await offThePool { queue.resume(id) }
        let done = try await onWorkerThread { Result { () throws(RequestError) in try queue.wait(for: id) } }.get()
        await queue.close()
        return done
    }

    @Test("A queue opened on the directory rejoins a paused download from its last checkpoint, then never fetches it again")
    func rejoinFromTheLastCheckpoint() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let (id, kept) = try await pausedDownload(scratch, server, key: key)

        let done = try await resumeInAReopenedQueue(scratch, server, id: id, expectingKept: kept)

        #expect(done.state == .finished)
        expectSameBytes(try? Data(contentsOf: scratch.file("big")), resourceBytes(count: 500_000))
        #expect(TestServer.requestCount(key: key) == 2, "the rest of the file, once")
        #expect(scratch.outputNames == ["big"], "no partial file left")

        let third = try await offThePool { try DownloadQueue(stateDirectory: scratch.state, transport: Fixture.transport(server)) }
        #expect(third.download(id)?.state == .finished && third.recovery.rejoined == 0)
        #expect(TestServer.requestCount(key: key) == 2, "a finished download is never fetched again")
    }

    @Test("close() stops the transfers with their bytes journaled and frees the directory before it returns", arguments: [false, true])
    func closeReleasesTheDirectory(blocking: Bool) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let queue = try await checkpointingQueue(scratch, server)
        let events = queue.events
        let id = try await offThePool { try queue.enqueue(.get(url(server, tls: false, 500_000, key: key, "&stall-after=300000")), to: scratch.file("big")) }
        let waiting = Task.detached { await onWorkerThread { Result { () throws(RequestError) in try queue.waitForAll() } } }
        try await waitFor("the last checkpoint before the stall") { hasLastCheckpointBeforeTheStall(queue, id) }

        if blocking { await onWorkerThread { queue.close() } } else { await queue.close() }

        #expect(queue.download(id)?.state == .waiting, "stopped by the close, not paused or failed")
        let kept = try #require(queue.download(id)?.bytesOnDisk)
        #expect(throws: RequestError.self) { try queue.enqueue(.get(url(server, tls: false, 1, key: key)), to: scratch.file("late")) }
        _ = try await waiting.value.get()
        for await _ in events {}  // returns because the close ended the stream (the hang guard fails it if not)
        await queue.close()  // a second close returns at once

        let reopened = try await offThePool { try DownloadQueue(stateDirectory: scratch.state, transport: Fixture.transport(server)) }
        #expect(reopened.recovery.rejoined == 1 && reopened.recovery.discardedBytes == 0)
        let done = try await onWorkerThread { Result { () throws(RequestError) in try reopened.wait(for: id) } }.get()
        await reopened.close()
        #expect(done.state == .finished)
        expectSameBytes(try? Data(contentsOf: scratch.file("big")), resourceBytes(count: 500_000))
        #expect(TestServer.requestCount(key: key) == 2, "the rest of the file, once")
        // The first response served at most 300,000 bytes (its stall); the second, only the rest
        // from the kept bytes. A restart from zero would have served 500,000 more.
        #expect(TestServer.bytesServed(key: key) <= 300_000 + 500_000 - Int(kept), "resumed from the kept bytes")
        #expect(scratch.outputNames == ["big"], "no partial file left")
    }

    @Test("A resource that changed since the checkpoint is fetched again from zero")
    func changedResourceRestarts() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let (id, _) = try await pausedDownload(scratch, server, key: key)
        // The resource changed: its validator is no longer the journaled one.
        let journal = scratch.state.appendingPathComponent("journal")
        let text = try String(contentsOf: journal, encoding: .utf8)
        #expect(text.contains("res-500000-v1"))
        try text.replacingOccurrences(of: "res-500000-v1", with: "changed").replacingOccurrences(of: "&stall-after=300000", with: "")
            .write(to: journal, atomically: true, encoding: .utf8)

        let done = try await resumeInAReopenedQueue(scratch, server, id: id, expectingKept: nil)

        #expect(done.state == .finished)
        #expect(done.sha256 == sha256Hex(resourceBytes(count: 500_000)), "the whole file, hashed from its first byte")
        expectSameBytes(try? Data(contentsOf: scratch.file("big")), resourceBytes(count: 500_000))
        #expect(TestServer.bytesServed(key: key) == 300_000 + 500_000, "the If-Range failed: the whole file again")
    }

    @Test("A cut connection is resumed from the bytes on disk within the same run")
    func cutIsResumed() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let queue = try await checkpointingQueue(scratch, server)
        let id = try await offThePool { try queue.enqueue(.get(url(server, tls: false, 500_000, key: key, "&cut=300000")), to: scratch.file("cut")) }
        let done = try await onWorkerThread { Result { () throws(RequestError) in try queue.wait(for: id) } }.get()

        #expect(done.state == .finished)
        expectSameBytes(try? Data(contentsOf: scratch.file("cut")), resourceBytes(count: 500_000))
        #expect(TestServer.requestCount(key: key) == 2)
    }

    @Test("Secrets stay out of the journal; other headers are kept for a later process")
    func secretsStayOutOfTheJournal() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let queue = try await offThePool { try DownloadQueue(stateDirectory: scratch.state, transport: Fixture.transport(server)) }
        let request = Request.get(url(server, tls: false, 10, key: UUID().uuidString))
            .header("Authorization", "Bearer top-secret").header("X-Api-Key", "key-secret", sensitive: true).header("X-Trace", "t-1")
        let id = try await offThePool { try queue.enqueue(request, to: scratch.file("small")) }
        _ = try await onWorkerThread { Result { () throws(RequestError) in try queue.wait(for: id) } }.get()

        let journal = try String(contentsOf: scratch.state.appendingPathComponent("journal"), encoding: .utf8)
        #expect(!journal.contains("top-secret") && !journal.contains("key-secret"))
        #expect(journal.contains("t-1"))
        let permissions = try FileManager.default.attributesOfItem(atPath: scratch.state.appendingPathComponent("journal").path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test("One queue at a time per state directory")
    func oneQueuePerDirectory() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        var first: DownloadQueue? = try await offThePool { try DownloadQueue(stateDirectory: scratch.state, transport: Fixture.transport(server)) }
        #expect(first != nil)

        await #expect(throws: RequestError.self) { try await offThePool { try DownloadQueue(stateDirectory: scratch.state, transport: Fixture.transport(server)) } }
        first = nil
        await #expect(throws: Never.self) { try await offThePool { try DownloadQueue(stateDirectory: scratch.state, transport: Fixture.transport(server)) } }
    }

    @Test("Cancelling a download deletes its partial file; a POST is refused")
    func cancelAndRefusal() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let queue = try await checkpointingQueue(scratch, server)
        let id = try await offThePool { try queue.enqueue(.get(url(server, tls: false, 500_000, key: UUID().uuidString, "&stall-after=300000")), to: scratch.file("x")) }
        try await waitFor("a checkpoint") { (queue.download(id)?.bytesOnDisk ?? 0) > 0 }
        try await offThePool { queue.cancel(id) }
        try await waitFor("the cancel") { queue.download(id)?.state == .cancelled }
        // The state is visible as soon as it changes; the partial file is deleted just after.
        try await waitFor("the partial file deleted") { scratch.outputNames.isEmpty }

        #expect(scratch.outputNames.isEmpty, "\(scratch.outputNames)")
        #expect(throws: RequestError.self) { try queue.enqueue(.post(url(server, tls: false, 1, key: "x")), to: scratch.file("p")) }
    }
}
