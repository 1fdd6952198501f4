import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// A resumed download, in each style, against servers and resume data that would make it splice
/// another version of a resource or touch a file that is not its own (issue 35, items 4 and 7).
@Suite(.hangGuard) struct ResumeStrictnessTests {
    static let resumable = DownloadOptions(keepsPartialFileForResume: true)

    /// The resume data of a download of `url` to `destination` that the server cuts short.
    private func cutDownload(
        _ url: String, to destination: URL, style: ClientStyle, through transport: Transport
    ) async throws -> ResumeData {
        let error = await style.download(.get(url), to: destination, options: Self.resumable, through: transport).failure
        return try #require(error?.resumeData, "\(String(describing: error))")
    }

    @Test(arguments: ClientStyle.allCases)
    func a206OfAnotherVersionFromAServerIgnoringIfRangeIsNotSpliced(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("spliced.bin")
        let resumeData = try await cutDownload("resource/1000000?cut=300000", to: destination, style: style, through: transport)

        // Version 2 now, from a server that answers Range whatever If-Range says.
        let error = await style.download(
            .get("resource/1000000?version=2&ignore-if-range=1"), to: destination, resumingFrom: resumeData, through: transport
        ).failure

        #expect(error?.code == .protocolError, "\(String(describing: error))")
        #expect(error?.message.contains(#"ETag "\"res-1000000-v2\"""#) == true, "\(String(describing: error?.message))")
        #expect(error?.resumeData == nil, "the partial bytes are of another version: given up")
        #expect(scratch.contents.isEmpty, "no mixed file at the destination, no partial file left")
        let again = try await style.download(.get("resource/1000000?version=2&ignore-if-range=1"), to: destination, through: transport).get()
        #expect(again.resumedFromOffset == 0)
        expectSameBytes(try Data(contentsOf: destination), resourceBytes(count: 1_000_000, version: 2))
    }

    @Test(arguments: ClientStyle.allCases)
    func a206OfAResourceOfAnotherLengthUnderTheSameTagIsNotSpliced(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("grown.bin")
        let resumeData = try await cutDownload("resource/1000000?tag=same&cut=300000", to: destination, style: style, through: transport)
        #expect(resumeData.validator == .entityTag(#""same""#) && resumeData.expectedLength == 1_000_000)

        // Same ETag, twice the length: the If-Range matches, the 206 runs to byte 1,999,999.
        let error = await style.download(
            .get("resource/2000000?tag=same"), to: destination, resumingFrom: resumeData, through: transport
        ).failure

        #expect(error?.code == .protocolError, "\(String(describing: error))")
        #expect(error?.message.contains("another length") == true, "\(String(describing: error?.message))")
        #expect(error?.resumeData == nil)
        #expect(scratch.contents.isEmpty)
    }

    @Test(arguments: ClientStyle.allCases)
    func aWeakETagIsNeverAValidatorNorSentAsIfRange(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("weak.bin")
        // A weak ETag beside a Last-Modified: RFC 9110 §13.1.5 allows neither in If-Range.
        let error = await style.download(
            .get("resource/400000?weak-etag=1&cut=100000"), to: destination, options: Self.resumable, through: transport
        ).failure
        #expect(error?.code == .responseTruncated)
        #expect(error?.resumeData == nil, "nothing to resume from: \(String(describing: error?.resumeData))")
        #expect(scratch.contents.isEmpty)

        // Resume data made by hand (or edited) with a weak tag is refused before anything is sent.
        let partial = scratch.file(".weak.bin.byhand.curlbridge-partial")
        try resourceBytes(count: 1000).write(to: partial)
        let key = UUID().uuidString
        let forged = ResumeData(
            url: "resource/400000", validator: .entityTag(#"W/"res-400000-v1""#), bytesOnDisk: 1000,
            partialFileURL: partial, destination: destination, expectedLength: 400_000)
        let refused = await style.download(
            .get("resource/400000?weak-etag=1&count=\(key)"), to: destination, resumingFrom: forged, through: transport
        ).failure
        #expect(refused?.code == .invalidHeader, "\(String(describing: refused))")
        #expect(TestServer.requestCount(key: key) == 0)
    }

    @Test(arguments: ClientStyle.allCases)
    func aDateWithinAMinuteOfTheResponseIsNotAValidator(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // No ETag, and Last-Modified one second before Date: two versions could share that date.
        let error = await style.download(
            .get("resource/400000?no-etag=1&just-modified=1&cut=100000"), to: scratch.file("fresh.bin"),
            options: Self.resumable, through: transport
        ).failure
        #expect(error?.code == .responseTruncated)
        #expect(error?.resumeData == nil, "\(String(describing: error?.resumeData))")
        #expect(scratch.contents.isEmpty)
    }

    @Test(arguments: ClientStyle.allCases)
    func resumeDataNamingAnotherFileNeverTouchesIt(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let elsewhere = scratch.file("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let victim = elsewhere.appendingPathComponent("victim.txt")
        let precious = Data(repeating: UInt8(ascii: "p"), count: 400_000)
        try precious.write(to: victim)
        let destination = scratch.file("x.bin")
        // Edited resume data: "the partial file" is the victim, 5 bytes of it kept.
        let forged = ResumeData(
            url: "resource/5000", validator: .entityTag(#""res-5000-v1""#), bytesOnDisk: 5,
            partialFileURL: victim, destination: destination, expectedLength: 5000)

        let error = await style.download(.get("resource/5000"), to: destination, resumingFrom: forged, through: transport).failure

        #expect(error?.code == .fileIO, "\(String(describing: error))")
        #expect(try Data(contentsOf: victim) == precious, "neither truncated, written nor moved")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        forged.discard()
        #expect(try Data(contentsOf: victim) == precious, "discard() deletes only a partial file of the destination")
    }

    @Test(arguments: ClientStyle.allCases)
    func aSymbolicLinkInPlaceOfThePartialFileIsNeverFollowed(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let victim = scratch.file("victim.txt")
        let precious = Data(repeating: UInt8(ascii: "p"), count: 400_000)  // longer than the bytes kept
        try precious.write(to: victim)
        let destination = scratch.file("x.bin")
        let resumeData = try await cutDownload("resource/1000000?cut=300000", to: destination, style: style, through: transport)
        // Someone with write access to the destination's directory swaps the partial file for a link.
        try FileManager.default.removeItem(at: resumeData.partialFileURL)
        try FileManager.default.createSymbolicLink(at: resumeData.partialFileURL, withDestinationURL: victim)

        let error = await style.download(.get("resource/1000000"), to: destination, resumingFrom: resumeData, through: transport).failure

        #expect(error?.code == .fileIO, "\(String(describing: error))")
        #expect(try Data(contentsOf: victim) == precious)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test(arguments: ClientStyle.allCases)
    func resumeDataKeepsNoUserInfo(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let token = Data("alice:hunter2".utf8).base64EncodedString()
        let url = server.httpURL.absoluteString.replacingOccurrences(of: "http://", with: "http://alice:hunter2@")
            + "resource/400000?basic=\(token)&cut=100000"
        let resumeData = try await cutDownload(url, to: scratch.file("x.bin"), style: style, through: transport)
        let saved = String(decoding: try JSONEncoder().encode(resumeData), as: UTF8.self)
        #expect(!saved.contains("hunter2") && !saved.contains("alice"), "\(saved)")
        resumeData.discard()
    }
}
