import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Failed and cancelled downloads keep their bytes and resume to a byte-identical file.
@Suite(.hangGuard) struct ResumeTests {
    static let resumable = DownloadOptions(keepsPartialFileForResume: true)

    @Test(arguments: ClientStyle.allCases)
    func byDefaultAFailedDownloadLeavesNothingBehind(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let error = await style.download(.get("resource/400000?cut=100000"), to: scratch.file("x.bin"), through: transport).failure
        #expect(error?.code == .responseTruncated)
        #expect(error?.resumeData == nil)
        #expect(scratch.contents.isEmpty, "no partial file is left for nobody to resume")
    }

    /// Resuming asks for resume data: a resumed download that fails again keeps its bytes,
    /// whatever its options say.
    @Test(arguments: ClientStyle.allCases)
    func aResumedDownloadThatFailsAgainKeepsItsBytes(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("twice.bin")
        let first = await style.download(
            .get("resource/1000000?cut=200000"), to: destination, options: Self.resumable, through: transport
        ).failure
        let firstResumeData = try #require(first?.resumeData)
        let second = await style.download(
            .get("resource/1000000?cut=500000"), to: destination, resumingFrom: firstResumeData, through: transport
        ).failure
        let secondResumeData = try #require(second?.resumeData, "\(String(describing: second))")
        #expect(secondResumeData.bytesOnDisk == 700_000)  // the cut counts from the range's first byte
        let done = try await style.download(
            .get("resource/1000000"), to: destination, resumingFrom: secondResumeData, through: transport
        ).get()
        #expect(done.resumedFromOffset == 700_000)
        expectSameBytes(try Data(contentsOf: destination), resourceBytes(count: 1_000_000))
        #expect(scratch.contents == ["twice.bin"])
    }

    @Test(arguments: ClientStyle.allCases, [false, true])
    func truncatedDownloadResumesToAByteIdenticalFile(style: ClientStyle, tls: Bool) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: tls)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("big.bin")
        try Data("mine".utf8).write(to: destination)
        let failed = await style.download(
            .get("resource/2000000?cut=700000"), to: destination, options: Self.resumable, through: transport)
        let error = try #require(failed.failure)
        #expect(error.code == .responseTruncated, "\(error)")  // over HTTP/1.1 and HTTP/2 alike
        let resumeData = try #require(error.resumeData)
        #expect(resumeData.bytesOnDisk == 700_000)
        #expect(resumeData.expectedLength == 2_000_000)
        #expect(resumeData.validator == .entityTag(#""res-2000000-v1""#))
        #expect(try Data(contentsOf: destination) == Data("mine".utf8))  // untouched meanwhile

        // As a later process would: the resume data survives a round trip through JSON.
        let saved = try JSONDecoder().decode(ResumeData.self, from: JSONEncoder().encode(resumeData))
        let expected = resourceBytes(count: 2_000_000)
        let progress = ProgressLog()
        let resumed = try await style.download(
            .get("resource/2000000"), to: destination, resumingFrom: saved,
            options: DownloadOptions(expectedSHA256: sha256Hex(expected)), progress: progress.record, through: transport
        ).get()
        #expect(resumed.status.code == 206)
        #expect(resumed.resumedFromOffset == 700_000)
        #expect(resumed.bytesWritten == 2_000_000)
        #expect(sha256Hex(try Data(contentsOf: destination)) == sha256Hex(expected))
        #expect(resumed.sha256 == sha256Hex(expected))  // the kept bytes are in the digest
        #expect(progress.all.last?.bytesReceived == 2_000_000)
        #expect(progress.all.last?.expectedBytesToReceive == 2_000_000)
        #expect(scratch.contents == ["big.bin"])
    }

    @Test(arguments: ClientStyle.allCases)
    func changedResourceRestartsCleanlyFromZero(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("changing.bin")
        let error = await style.download(
            .get("resource/1000000?cut=300000"), to: destination, options: Self.resumable, through: transport
        ).failure
        let resumeData = try #require(error?.resumeData)
        // The server now has version 2: its ETag differs, so If-Range gets the whole new resource.
        let restarted = try await style.download(
            .get("resource/1000000?version=2"), to: destination, resumingFrom: resumeData, through: transport
        ).get()
        #expect(restarted.status == .ok)
        #expect(restarted.resumedFromOffset == 0)
        expectSameBytes(try Data(contentsOf: destination), resourceBytes(count: 1_000_000, version: 2))
        #expect(scratch.contents == ["changing.bin"])
    }

    /// A date at least 60 s before the response's `Date` is a strong validator (RFC 9110 §8.8.2.2):
    /// without an entity tag, it is the `If-Range`, and the `206` must repeat it.
    @Test(arguments: ClientStyle.allCases)
    func lastModifiedServesAsTheValidatorWithoutAnETag(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("dated.bin")
        let error = await style.download(
            .get("resource/400000?no-etag=1&cut=100000"), to: destination, options: Self.resumable, through: transport
        ).failure
        let resumeData = try #require(error?.resumeData)
        #expect(resumeData.validator == .lastModified("Tue, 02 Jan 2024 00:00:00 GMT"))
        let resumed = try await style.download(
            .get("resource/400000?no-etag=1"), to: destination, resumingFrom: resumeData, through: transport
        ).get()
        #expect(resumed.resumedFromOffset == 100_000)
        expectSameBytes(try Data(contentsOf: destination), resourceBytes(count: 400_000))
    }

    @Test(arguments: ClientStyle.allCases)
    func withoutAValidatorNothingIsKept(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let error = await style.download(
            .get("resource/400000?no-validators=1&cut=100000"), to: scratch.file("x.bin"), options: Self.resumable,
            through: transport
        ).failure
        #expect(error != nil)
        #expect(error?.resumeData == nil)
        #expect(scratch.contents.isEmpty)
    }

    @Test(arguments: ClientStyle.allCases)
    func unsatisfiableRangeIsReportedAndThePartialFileDropped(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("whole.bin")
        let partial = scratch.file(".whole.bin.byhand.curlbridge-partial")
        try resourceBytes(count: 5000).write(to: partial)
        let resumeData = ResumeData(
            url: "resource/5000", validator: .entityTag(#""res-5000-v1""#), bytesOnDisk: 5000,
            partialFileURL: partial, destination: destination, expectedLength: 5000)
        let error = await style.download(.get("resource/5000"), to: destination, resumingFrom: resumeData, through: transport).failure
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.response?.status.code == 416)
        #expect(scratch.contents.isEmpty)
    }

    @Test(arguments: ClientStyle.allCases)
    func missingPartialFileStartsAFreshDownload(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("fresh.bin")
        let resumeData = ResumeData(
            url: "resource/5000", validator: .entityTag(#""res-5000-v1""#), bytesOnDisk: 3000,
            partialFileURL: scratch.file(".fresh.bin.gone.curlbridge-partial"), destination: destination, expectedLength: 5000)
        let response = try await style.download(.get("resource/5000"), to: destination, resumingFrom: resumeData, through: transport).get()
        #expect(response.status == .ok)
        #expect(response.resumedFromOffset == 0)
        expectSameBytes(try Data(contentsOf: destination), resourceBytes(count: 5000))
    }
}
