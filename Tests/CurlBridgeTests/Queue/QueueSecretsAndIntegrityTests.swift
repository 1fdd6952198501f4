import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// What a ``DownloadQueue`` keeps on disk of a request's secrets, and what it accepts as the file
/// (issue 35, items 5 and 7): user info and tokens counted in the journal as the security review
/// counted them, a resumed download against a server that ignores `If-Range`, an expected digest.
@Suite(.hangGuard, .serialized) struct QueueSecretsAndIntegrityTests {
    typealias Scratch = DownloadQueueTests.Scratch

    private static let token = Data("alice:hunter2".utf8).base64EncodedString()

    /// `resource/SIZE` behind Basic credentials, with user info and an `access_token` in the URL.
    private func secretURL(_ server: TestServer, _ size: Int, key: String, _ extra: String = "") -> String {
        server.httpURL.absoluteString.replacingOccurrences(of: "http://", with: "http://alice:hunter2@")
            + "resource/\(size)?basic=\(Self.token)&access_token=tok-S3CRET&count=\(key)\(extra)"
    }

    private func journal(_ scratch: Scratch) throws -> String {
        try String(contentsOf: scratch.state.appendingPathComponent("journal"), encoding: .utf8)
    }

    private func count(_ text: String, in journal: String) -> Int {
        journal.components(separatedBy: text).count - 1
    }

    private func open(
        _ scratch: Scratch, _ transport: Transport, _ options: DownloadQueue.Options = .init(),
        rejoinedRequest: DownloadQueue.RejoinedRequest? = nil
    ) async throws -> DownloadQueue {
        try await offThePool { try DownloadQueue(stateDirectory: scratch.state, transport: transport, options: options, rejoinedRequest: rejoinedRequest) }
    }

    private func wait(_ queue: DownloadQueue, for id: UInt64) async throws -> QueuedDownload {
        try await onWorkerThread { Result { () throws(RequestError) in try queue.wait(for: id) } }.get()
    }

    /// Enqueues `url` (stalled by the server after 300,000 bytes, all of which it has sent), waits
    /// for three checkpoints and closes the queue: the download waits in the journal for the next
    /// queue. Returns its id and the bytes the journal says are on disk.
    private func stoppedDownload(
        _ scratch: Scratch, _ transport: Transport, _ url: String, key: String,
        _ options: DownloadQueue.Options = .init(checkpointInterval: 65_536), expectedSHA256: String? = nil
    ) async throws -> (UInt64, kept: Int64) {
        let queue = try await open(scratch, transport, options)
        let id = try await offThePool { try queue.enqueue(.get(url), to: scratch.file("big"), expectedSHA256: expectedSHA256) }
        try await waitFor("three checkpoints") { (queue.download(id)?.bytesOnDisk ?? 0) >= 196_608 }
        try await waitFor("the server's 300,000 bytes") { TestServer.bytesServed(key: key) == 300_000 }
        await queue.close()
        return (id, queue.download(id)?.bytesOnDisk ?? 0)
    }

    @Test func userInfoNeverReachesTheJournalWhileTheQueryIsKeptAsDocumented() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let queue = try await open(scratch, Fixture.transport(server))
        let id = try await offThePool { try queue.enqueue(.get(secretURL(server, 100_000, key: UUID().uuidString)), to: scratch.file("small")) }
        let done = try await wait(queue, for: id)
        await queue.close()

        #expect(done.state == .finished, "\(String(describing: done.error))")
        let text = try journal(scratch)
        #expect(count("hunter2", in: text) == 0 && count("alice", in: text) == 0, "\(text)")
        #expect(count("tok-S3CRET", in: text) > 0, "by default the query is journaled, to be sent again: \(text)")
        #expect(!done.url.contains("hunter2"))
    }

    @Test func withoutItsQueryJournaledADownloadResumesWithTheRequestTheProgramGivesAgain() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let (id, kept) = try await stoppedDownload(
            scratch, Fixture.transport(server), secretURL(server, 500_000, key: key, "&stall-after=300000"), key: key,
            .init(checkpointInterval: 65_536, journalsQuery: false))
        let stopped = try journal(scratch)
        #expect(count("hunter2", in: stopped) == 0 && count("tok-S3CRET", in: stopped) == 0 && count("access_token", in: stopped) == 0)

        // A later process: credentials from its configuration, the query from the program.
        let origin = Credential.Origin(scheme: "http", host: "127.0.0.1", port: server.httpURL.port)
        let transport = Fixture.transport(server) { $0.credentials = [origin: .basic(username: "alice", password: "hunter2")] }
        let asked = Mutex<[String]>([])
        let queue = try await open(scratch, transport) { download in
            asked.withLock { $0.append(download.url) }
            return .get(download.url + "?basic=\(Self.token)&access_token=tok-S3CRET&count=\(key)")
        }
        let done = try await wait(queue, for: id)
        await queue.close()

        #expect(done.state == .finished, "\(String(describing: done.error))")
        expectSameBytes(try? Data(contentsOf: scratch.file("big")), resourceBytes(count: 500_000))
        #expect(TestServer.bytesServed(key: key) == 300_000 + 500_000 - Int(kept), "resumed from its checkpoint: the rest once")
        let askedFor = asked.withLock { $0 }
        #expect(askedFor == [server.httpURL.absoluteString + "resource/500000"], "the journaled URL: no user info, no query")
        let text = try journal(scratch)
        #expect(count("hunter2", in: text) == 0 && count("tok-S3CRET", in: text) == 0, "\(text)")
    }

    @Test func withoutItsQueryJournaledAndNoRequestGivenADownloadIsPausedNotSentElsewhere() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let (id, _) = try await stoppedDownload(
            scratch, Fixture.transport(server), secretURL(server, 500_000, key: key, "&stall-after=300000"), key: key,
            .init(checkpointInterval: 65_536, journalsQuery: false))
        let requests = TestServer.requestCount(key: key)

        let queue = try await open(scratch, Fixture.transport(server))
        try await waitFor("the pause") { queue.download(id)?.state == .paused }
        await queue.close()

        #expect(queue.download(id)?.error?.code == .invalidURL)
        #expect(queue.download(id)?.bytesOnDisk ?? 0 >= 196_608, "its bytes are kept")
        #expect(TestServer.requestCount(key: key) == requests, "the URL without its query is never requested")
    }

    @Test func aResumedDownloadNeverSplicesAVersionAServerIgnoringIfRangeSends() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let url = server.httpURL.absoluteString + "resource/500000?count=\(key)&stall-after=300000"
        let (id, _) = try await stoppedDownload(scratch, Fixture.transport(server), url, key: key)
        // The resource is version 2 now, behind a cache that answers Range whatever If-Range says.
        try editJournal(scratch, replacing: "stall-after=300000", with: "version=2&ignore-if-range=1")

        let queue = try await open(scratch, Fixture.transport(server))
        let done = try await wait(queue, for: id)
        await queue.close()

        #expect(done.state == .finished, "\(String(describing: done.error))")
        expectSameBytes(try? Data(contentsOf: scratch.file("big")), resourceBytes(count: 500_000, version: 2))
        #expect(done.sha256 == sha256Hex(resourceBytes(count: 500_000, version: 2)))
        #expect(scratch.outputNames == ["big"])
    }

    @Test func anExpectedDigestIsJournaledAndAFileWithAnotherFailsAndIsNeverMovedIntoPlace() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        let digest = sha256Hex(resourceBytes(count: 500_000))
        let key = UUID().uuidString
        let url = server.httpURL.absoluteString + "resource/500000?count=\(key)"

        // The right digest survives a later process and is checked over the resumed file.
        let (id, _) = try await stoppedDownload(scratch, transport, url + "&stall-after=300000", key: key, expectedSHA256: digest.uppercased())
        try editJournal(scratch, replacing: "&stall-after=300000", with: "")
        let reopened = try await open(scratch, transport)
        #expect(reopened.download(id)?.expectedSHA256 == digest)
        let done = try await wait(reopened, for: id)
        #expect(done.state == .finished && done.sha256 == digest, "\(String(describing: done.error))")

        // Version 2 has another digest: the download fails and leaves nothing at its destination.
        let other = try await offThePool { try reopened.enqueue(.get(url + "&version=2"), to: scratch.file("v2"), expectedSHA256: digest) }
        let failed = try await wait(reopened, for: other)
        #expect(failed.state == .failed && failed.error?.code == .integrityMismatch, "\(String(describing: failed.error))")
        #expect(scratch.outputNames == ["big"], "no file at the destination, no partial file")

        #expect(throws: RequestError.self) { try reopened.enqueue(.get(url), to: scratch.file("x"), expectedSHA256: "abc") }
        await reopened.close()
    }

    /// Replaces `old` with `new` in the journal, as a later edit or a changed server would.
    private func editJournal(_ scratch: Scratch, replacing old: String, with new: String) throws {
        try journal(scratch).replacingOccurrences(of: old, with: new)
            .write(to: scratch.state.appendingPathComponent("journal"), atomically: true, encoding: .utf8)
    }
}
