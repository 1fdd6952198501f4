import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// What a ``DownloadQueue`` finds on opening a state directory a killed process left.
@Suite(.hangGuard) struct QueueRecoveryTests {
    /// A state directory in `scratch` whose journal has download 1 of `server`'s 1000-byte
    /// resource to `file.bin` and no checkpoint: killed before its first; and an orphan partial
    /// file of `size` bytes beside the destination. Returns the state directory, the destination
    /// and the orphan.
    private func killedBeforeItsFirstCheckpoint(
        _ scratch: ScratchDirectory, _ server: TestServer, orphanSize size: Int
    ) throws -> (state: URL, destination: URL, orphan: URL) {
        let state = scratch.file("state")
        let destination = scratch.file("file.bin")
        try writeJournal([try QueueJournalLine(id: 1, url: server.httpURL.absoluteString + "resource/1000", destination: destination.path).text], in: state)
        let orphan = scratch.file(".file.bin.killed.curlbridge-partial")
        try Data(count: size).write(to: orphan)
        return (state, destination, orphan)
    }

    @Test func aPartialFileNoCheckpointNamesIsDeletedAndCountedAsDiscarded() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let (state, destination, orphan) = try killedBeforeItsFirstCheckpoint(scratch, server, orphanSize: 700)

        let queue = try await offThePool { try DownloadQueue(stateDirectory: state, transport: Fixture.transport(server)) }

        #expect(queue.recovery.rejoined == 1)
        #expect(queue.recovery.discardedBytes == 700)
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        #expect(await poll(within: .seconds(60)) { queue.download(1)?.state == .finished })
        #expect(FileManager.default.contents(atPath: destination.path) == resourceBytes(0..<1000, version: 1))
    }

    @Test func tidyingLeavesLookAlikesOfOtherNamesAndNamesThatAreNotUTF8() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let (state, _, orphan) = try killedBeforeItsFirstCheckpoint(scratch, server, orphanSize: 10)
        // Another destination's partial file, one that looks like it but for its token, and one
        // whose name is not UTF-8 (the file system allows any bytes but `/` and NUL).
        let lookAlikes = [".file.bin.sig.k1.curlbridge-partial", ".file.bin.K1.curlbridge-partial", ".file.bin..curlbridge-partial"]
        for name in lookAlikes { try Data(count: 20).write(to: scratch.file(name)) }
        let rawName: [UInt8] = Array(scratch.url.path.utf8) + Array("/.file.bin.".utf8) + [0xFF, 0x6B] + Array(".curlbridge-partial".utf8) + [0]
        let descriptor = rawName.withUnsafeBufferPointer { path in
            path.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        }
        #expect(descriptor >= 0)
        close(descriptor)

        let queue = try await offThePool { try DownloadQueue(stateDirectory: state, transport: Fixture.transport(server)) }

        #expect(queue.recovery.discardedBytes == 10 && !FileManager.default.fileExists(atPath: orphan.path))
        for name in lookAlikes { #expect(FileManager.default.fileExists(atPath: scratch.file(name).path), "\(name)") }
        #expect(rawName.withUnsafeBufferPointer { path in path.withMemoryRebound(to: CChar.self) { access($0.baseAddress!, F_OK) } } == 0)
        #expect(await poll(within: .seconds(60)) { queue.download(1)?.state == .finished })
        await queue.close()
    }

    @Test func aDownloadKilledWhileMovedIntoPlaceIsFinishedOnOpeningWithItsDigest() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let state = scratch.file("state")
        let destination = scratch.file("file.bin")
        let url = server.httpURL.absoluteString + "resource/1000"
        // Killed between the last checkpoint (the whole file) and the move: 200 bytes past it too.
        let partial = scratch.file(".file.bin.killed.curlbridge-partial")
        try (resourceBytes(count: 1000) + Data(count: 200)).write(to: partial)
        try writeJournal([
            try QueueJournalLine(id: 1, url: url, destination: destination.path).text,
            checkpointLine(id: 1, url: url, tag: "res-1000-v1", bytes: 1000, length: 1000, partial: partial, destination: destination),
        ], in: state)

        let queue = try await offThePool { try DownloadQueue(stateDirectory: state, transport: Fixture.transport(server)) }

        #expect(queue.recovery.finishedOnOpening == 1)
        #expect(queue.recovery.discardedBytes == 200)
        #expect(queue.download(1)?.state == .finished)
        #expect(queue.download(1)?.sha256 == sha256Hex(resourceBytes(count: 1000)))
        #expect(FileManager.default.contents(atPath: destination.path) == resourceBytes(count: 1000))
        #expect(!FileManager.default.fileExists(atPath: partial.path))
    }

    @Test func rejoiningADownloadKeepsThePartialFileOfAnotherWhoseNameStartsWithItsName() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let state = scratch.file("state")
        let key = "rejoin-\(UUID().uuidString)"
        let (image, signature) = (scratch.file("a.iso"), scratch.file("a.iso.sig"))
        let signatureURL = server.httpURL.absoluteString + "resource/1000?count=\(key)"
        // Both killed: `a.iso` before its first checkpoint, `a.iso.sig` after 500 bytes.
        let partial = scratch.file(".a.iso.sig.killed.curlbridge-partial")
        try resourceBytes(count: 500).write(to: partial)
        try writeJournal([
            try QueueJournalLine(id: 1, url: server.httpURL.absoluteString + "resource/1000", destination: image.path).text,
            try QueueJournalLine(id: 2, url: signatureURL, destination: signature.path).text,
            checkpointLine(id: 2, url: signatureURL, tag: "res-1000-v1", bytes: 500, length: 1000, partial: partial, destination: signature),
        ], in: state)

        let queue = try await offThePool { try DownloadQueue(stateDirectory: state, transport: Fixture.transport(server)) }

        #expect(queue.recovery.rejoined == 2)
        #expect(queue.recovery.discardedBytes == 0)
        #expect(await poll(within: .seconds(60)) { queue.downloads.allSatisfy { $0.state == .finished } })
        #expect(TestServer.bytesServed(key: key) == 500)  // resumed from its checkpoint
        #expect(FileManager.default.contents(atPath: signature.path) == resourceBytes(count: 1000))
    }
}
