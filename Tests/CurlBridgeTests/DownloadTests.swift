import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Downloads to a file in every style: atomic, verified, limited, and never touching the user's
/// file on failure.
@Suite(.hangGuard) struct DownloadTests {
    @Test(arguments: ClientStyle.allCases, [false, true])
    func bodyGoesToTheDestinationAndNothingElseRemains(style: ClientStyle, tls: Bool) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: tls)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("resource.bin")
        let progress = ProgressLog()
        let response = try await style.download(
            .get("resource/3000000"), to: destination, progress: progress.record, through: transport).get()
        #expect(response.status == .ok)
        #expect(response.fileURL == destination)
        #expect(response.bytesWritten == 3_000_000)
        #expect(response.resumedFromOffset == 0)
        expectSameBytes(try Data(contentsOf: destination), resourceBytes(count: 3_000_000))
        #expect(scratch.contents == ["resource.bin"])
        let reports = progress.all
        #expect(reports.last?.bytesReceived == 3_000_000)
        #expect(reports.last?.expectedBytesToReceive == 3_000_000)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytesReceived <= $1.bytesReceived })
    }

    @Test(arguments: ClientStyle.allCases)
    func existingDestinationIsReplacedOrKeptAsTheOptionsSay(style: ClientStyle) async throws {
        let listener = try SilentListener()
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("existing.bin")
        try Data("mine".utf8).write(to: destination)
        let refused = await style.download(
            .get(listener.url), to: destination, options: DownloadOptions(replacesExistingFile: false), through: transport)
        #expect(refused.failure?.code == .destinationExists)
        #expect(listener.connectionAttempts() == 0)
        #expect(try Data(contentsOf: destination) == Data("mine".utf8))
        _ = try await style.download(.get("resource/1000"), to: destination, through: transport).get()
        expectSameBytes(try Data(contentsOf: destination), resourceBytes(count: 1000))
        #expect(scratch.contents == ["existing.bin"])
    }

    @Test(arguments: ClientStyle.allCases)
    func missingDirectoryFailsBeforeAnyRequestUnlessAskedToCreateIt(style: ClientStyle) async throws {
        let listener = try SilentListener()
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let nested = scratch.file("a/b/file.bin")
        let error = await style.download(.get(listener.url), to: nested, through: transport).failure
        #expect(error?.code == .fileIO)
        #expect(error?.message.contains("does not exist") == true)
        #expect(listener.connectionAttempts() == 0)
        let created = try await style.download(
            .get("resource/100"), to: nested, options: DownloadOptions(createsIntermediateDirectories: true), through: transport
        ).get()
        expectSameBytes(try Data(contentsOf: created.fileURL), resourceBytes(count: 100))
    }

    @Test(arguments: ClientStyle.allCases)
    func errorStatusWritesNothingAndCarriesTheErrorBody(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("keep.bin")
        try Data("mine".utf8).write(to: destination)
        let error = await style.download(.get("status/404"), to: destination, through: transport).failure
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.response?.status == .notFound)
        let errorBody = String(decoding: error?.response?.body ?? Data(), as: UTF8.self)
        #expect(errorBody.hasPrefix("404"))
        #expect(error?.resumeData == nil)
        #expect(try Data(contentsOf: destination) == Data("mine".utf8))
        #expect(scratch.contents == ["keep.bin"])
    }

    @Test(arguments: ClientStyle.allCases, [false, true])
    func aDownloadReportsItsDigestWhenAsked(style: ClientStyle, tls: Bool) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: tls)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let hashing = DownloadOptions(computesSHA256: true)
        let file = try await style.download(
            .get("resource/300000"), to: scratch.file("plain.bin"), options: hashing, through: transport).get()
        #expect(file.sha256 == sha256Hex(resourceBytes(count: 300_000)))
        let empty = try await style.download(.get("resource/0"), to: scratch.file("empty.bin"), options: hashing, through: transport).get()
        #expect(empty.sha256 == sha256Hex(Data()))
        // Unasked, nothing is hashed: the file is the same, the digest absent.
        let unasked = try await style.download(.get("resource/300000"), to: scratch.file("unasked.bin"), through: transport).get()
        #expect(unasked.sha256 == nil)
        #expect(try Data(contentsOf: scratch.file("unasked.bin")) == resourceBytes(count: 300_000))
    }

    @Test(arguments: ClientStyle.allCases)
    func digestIsCheckedWhileWritingAndAMismatchLeavesTheDestinationUntouched(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("checked.bin")
        let expected = sha256Hex(resourceBytes(count: 500_000))
        let good = try await style.download(
            .get("resource/500000"), to: destination, options: DownloadOptions(expectedSHA256: expected.uppercased()),
            through: transport
        ).get()
        #expect(good.sha256 == expected)
        try Data("mine".utf8).write(to: destination)
        let error = await style.download(
            .get("resource/500000?version=2"), to: destination, options: DownloadOptions(expectedSHA256: expected),
            through: transport
        ).failure
        #expect(error?.code == .integrityMismatch)
        #expect(error?.resumeData == nil)
        #expect(try Data(contentsOf: destination) == Data("mine".utf8))
        #expect(scratch.contents == ["checked.bin"])
    }

    @Test(arguments: ClientStyle.allCases)
    func sizeLimitAppliesToDownloadsAndTheMemoryCapDoesNot(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.maximumBodySize = 1000 }
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("limited.bin")
        let big = try await style.download(.get("resource/200000"), to: destination, through: transport).get()
        #expect(big.bytesWritten == 200_000)
        try FileManager.default.removeItem(at: destination)
        let error = await style.download(
            .get("resource/200000"), to: destination, options: DownloadOptions(maximumSize: 100_000), through: transport
        ).failure
        #expect(error?.code == .bodyTooLarge)
        #expect(scratch.contents.isEmpty)
    }

    @Test(arguments: ClientStyle.allCases)
    func unwritableDirectoryIsFileIOBeforeAnyRequest(style: ClientStyle) async throws {
        // A full disk mid-download is tested in a child process with a file size limit (DiskFullTests).
        let transport = Fixture.transport(try await Fixture.server())
        let error = await style.download(
            .get("resource/1000"), to: URL(fileURLWithPath: "/proc/curlbridge-cannot-write-here.bin"), through: transport
        ).failure
        #expect(error?.code == .fileIO)
    }
}
