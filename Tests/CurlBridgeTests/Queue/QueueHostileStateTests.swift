import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// A ``DownloadQueue`` opened on state another local user could plant, or that a fault damaged
/// (issue 35, item 4): each test performs the attack as the security review ran it.
@Suite(.hangGuard, .serialized) struct QueueHostileStateTests {
    private let precious = Data("precious, not the queue's\n".utf8)

    private func open(_ state: URL, _ server: TestServer, _ options: DownloadQueue.Options = .init()) async throws -> DownloadQueue {
        try await offThePool { try DownloadQueue(stateDirectory: state, transport: Fixture.transport(server), options: options) }
    }

    /// The error opening `state` fails with, or `nil` when it opens (the queue is closed at once).
    private func openingError(_ state: URL, _ server: TestServer) async -> RequestError? {
        do {
            let queue = try await open(state, server)
            await queue.close()
            return nil
        } catch let error as RequestError {
            return error
        } catch {
            Issue.record("not a RequestError: \(error)")
            return nil
        }
    }

    @Test func aWorldWritableStateDirectoryWithALinkNamedJournalTmpIsRefusedAndTheLinkNeverFollowed() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let state = scratch.file("state")
        try writeJournal([], in: state, mode: 0o777)
        let victim = scratch.file("victim.txt")
        try precious.write(to: victim)
        try FileManager.default.createSymbolicLink(at: state.appendingPathComponent("journal.tmp"), withDestinationURL: victim)

        let error = await openingError(state, server)

        #expect(error?.code == .fileIO)
        #expect(error?.message.contains("writable by its group or others") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: victim) == precious)
    }

    @Test func aLinkNamedJournalTmpInThisUsersOwnDirectoryIsNeverFollowed() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let state = scratch.file("state")
        try writeJournal([], in: state)
        let victim = scratch.file("victim.txt")
        try precious.write(to: victim)
        try FileManager.default.createSymbolicLink(at: state.appendingPathComponent("journal.tmp"), withDestinationURL: victim)

        let queue = try await open(state, server)
        await queue.close()

        #expect(try Data(contentsOf: victim) == precious, "the rewrite goes to a new file (O_EXCL), never through a link")
        #expect(!FileManager.default.fileExists(atPath: state.appendingPathComponent("journal.tmp").path), "the stale name is removed, not followed")
    }

    @Test func aJournalPlantedInADirectoryOthersCanWriteIsNeverReplayed() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let state = scratch.file("state")
        let target = scratch.file("elsewhere").appendingPathComponent("authorized_keys")
        let key = UUID().uuidString
        try writeJournal(
            [try QueueJournalLine(id: 1, url: server.httpURL.absoluteString + "resource/100?count=\(key)", destination: target.path).text],
            in: state, mode: 0o777)

        let error = await openingError(state, server)

        #expect(error?.code == .fileIO, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(TestServer.requestCount(key: key) == 0)
    }

    @Test func aForgedCheckpointNamingAnotherFileFailsTheOpeningAndTouchesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let state = scratch.file("state")
        let destination = scratch.file("file.bin")
        let victim = scratch.file("elsewhere-victim.txt")
        try precious.write(to: victim)
        let url = server.httpURL.absoluteString + "resource/1000"
        // Its last checkpoint "covered the whole file": opening would truncate and rename it.
        try writeJournal([
            try QueueJournalLine(id: 1, url: url, destination: destination.path).text,
            checkpointLine(
                id: 1, url: url, tag: "res-1000-v1", bytes: Int64(precious.count), length: Int64(precious.count),
                partial: victim, destination: destination),
        ], in: state)
        let journal = try Data(contentsOf: state.appendingPathComponent("journal"))

        let error = await openingError(state, server)

        #expect(error?.code == .fileIO)
        #expect(error?.message.contains("line 2") == true && error?.message.contains("not a partial file") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: victim) == precious)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(try Data(contentsOf: state.appendingPathComponent("journal")) == journal, "the journal is left as it was")
    }

    @Test func anIdOfUInt64MaxIsRefusedWithoutATrap() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let state = scratch.file("state")
        try writeJournal(
            [try QueueJournalLine(id: .max, url: server.httpURL.absoluteString + "resource/10", destination: scratch.file("f").path).text],
            in: state)

        let error = await openingError(state, server)

        #expect(error?.code == .fileIO)
        #expect(error?.message.contains("line 1: id 18446744073709551615 is outside") == true, "\(String(describing: error))")
    }

    /// A cancel record damaged in the middle of the journal: dropping it silently brought the
    /// cancelled download back.
    @Test func aDamagedLineInTheMiddleFailsTheOpeningOrIsSetAsideWhenAsked() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let state = scratch.file("state")
        let key = UUID().uuidString
        try writeJournal([
            try QueueJournalLine(id: 1, url: server.httpURL.absoluteString + "resource/1000?count=\(key)", destination: scratch.file("one").path).text,
            #"{"operation":"cancel","id":1"#,
            try QueueJournalLine(id: 2, url: server.httpURL.absoluteString + "resource/10?count=\(key)", destination: scratch.file("two").path).text,
        ], in: state)
        let journal = try Data(contentsOf: state.appendingPathComponent("journal"))

        let error = await openingError(state, server)

        #expect(error?.code == .fileIO)
        #expect(error?.message.contains("line 2: not a journal record") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: state.appendingPathComponent("journal")) == journal)
        #expect(TestServer.requestCount(key: key) == 0, "no download came back")

        let queue = try await open(state, server, .init(setsAsideDamagedJournal: true))
        await queue.close()
        #expect(queue.downloads.isEmpty && queue.recovery.rejoined == 0)
        let keptAside = try #require(queue.recovery.damagedJournal)
        #expect(try Data(contentsOf: keptAside) == journal, "kept aside as it was, for a person to read")
        #expect(keptAside.lastPathComponent.hasPrefix("journal.damaged-"))
        #expect(TestServer.requestCount(key: key) == 0)
    }

    @Test func aLineCutShortAtTheEndIsAnAppendACrashInterruptedAndIgnored() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let state = scratch.file("state")
        let destination = scratch.file("one")
        try writeJournal([
            try QueueJournalLine(id: 1, url: server.httpURL.absoluteString + "resource/1000", destination: destination.path).text,
        ], in: state)
        let handle = try FileHandle(forWritingTo: state.appendingPathComponent("journal"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"operation":"cancel","i"#.utf8))
        try handle.close()

        let queue = try await open(state, server)
        #expect(queue.recovery.rejoined == 1)
        let done = try await onWorkerThread { Result { () throws(RequestError) in try queue.wait(for: 1) } }.get()
        await queue.close()

        #expect(done.state == .finished)
        #expect(FileManager.default.contents(atPath: destination.path) == resourceBytes(count: 1000))
    }
}
