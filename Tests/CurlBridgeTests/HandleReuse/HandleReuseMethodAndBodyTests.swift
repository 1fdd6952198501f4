@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// A reused easy handle carries no method, body, body size, read callback or range of the request
/// it served before (`CURLOPT_CUSTOMREQUEST`, `NOBODY`, `POST`, `POSTFIELDSIZE_LARGE`,
/// `READFUNCTION`, `MIMEPOST`, `Range`), in every style, over HTTP/1.1 and HTTP/2.
@Suite(.hangGuard) struct HandleReuseMethodAndBodyTests {
    static let payload = Data((0..<200_000).map { UInt8(($0 * 11) % 256) })

    /// Requests A that set a method other than `GET`, by name.
    static let methods: [String: Request] = [
        "PUT with a body": .put("echo").body(payload),
        "DELETE": .delete("echo"),
        "HEAD": .head("echo"),
        "POST with a body": .post("echo").body(payload),
        "POST without a body": .post("echo"),
        "PATCH with a body": .patch("echo").body("patch"),
        "custom method": Request(method: "PURGE", url: "echo"),
    ]

    @Test(arguments: ClientStyle.allCases, methods.keys.sorted())
    func aGETAfterAnotherMethodIsAPlainGET(style: ClientStyle, method: String) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let first = try #require(Self.methods[method])
        let a = try await style.send(first, through: transport).get()
        #expect(a.status == .ok)
        let echo = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get().echo() }
        echo.expectPlainGET()
    }

    @Test(arguments: ClientStyle.allCases, [false, true])
    func aGETAfterAHEADGetsItsBody(style: ClientStyle, tls: Bool) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: tls) { $0.reusesEasyHandles = true }
        let head = try await style.send(.head("resource/100000"), through: transport).get()
        #expect(head.status == .ok && head.body.isEmpty)
        let get = try await transport.reusingAHandle { try await style.send(.get("resource/100000"), through: transport).get() }
        #expect(get.status == .ok)
        expectSameBytes(get.body, resourceBytes(count: 100_000))
    }

    @Test(arguments: ClientStyle.allCases, [false, true])
    func anEmptyPOSTAfterABodySendsContentLengthZero(style: ClientStyle, tls: Bool) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: tls) { $0.reusesEasyHandles = true }
        let a = try await style.send(.post("echo").body(Self.payload), through: transport).get().echo()
        #expect(a.bodyLength == Self.payload.count)
        for empty in [Request.post("echo"), Request.post("echo").body(Data())] {
            let echo = try await transport.reusingAHandle { try await style.send(empty, through: transport).get().echo() }
            #expect(echo.method == "POST")
            #expect(echo.bodyLength == 0)
            #expect(echo.header("Transfer-Encoding").isEmpty)
            #expect(echo.header("Expect").isEmpty)
            if !tls { #expect(echo.header("Content-Length") == ["0"]) }
        }
    }

    @Test(arguments: ClientStyle.allCases, [false, true])
    func requestsAfterAStreamedBodyOfUnknownLengthSendNoneOfIt(style: ClientStyle, tls: Bool) async throws {
        let transport = Fixture.transport(try await Fixture.server(), tls: tls) { $0.reusesEasyHandles = true }
        let next = SendableIterator(Self.payload.chunked(into: 50_000))
        let streamed = try await style.send(.post("upload-sink").body(pulling: { next.next() }), through: transport).get()
        let reply = try streamed.decode(UploadSinkReply.self)
        #expect(reply.sha256 == sha256Hex(Self.payload))
        if !tls { #expect(reply.transferEncoding == "chunked") }

        let get = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get().echo() }
        get.expectPlainGET()
        // A body of known length after it: sent whole, with its length, not chunked.
        let bytes = Data("known length".utf8)
        let post = try await transport.reusingAHandle {
            try await style.send(.post("upload-sink").body(bytes), through: transport).get().decode(UploadSinkReply.self)
        }
        #expect(post.length == bytes.count && post.sha256 == sha256Hex(bytes))
        #expect(post.transferEncoding == nil)
        if !tls { #expect(post.contentLength == String(bytes.count)) }
    }

    /// Upload sources A, by name: each sends ``payload`` through curl's read callback.
    static let uploadSources = ["data", "file", "stream"]

    @Test(arguments: ClientStyle.allCases, uploadSources)
    func anUploadLeavesNoBodyForTheNextRequests(style: ClientStyle, source: String) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("upload.bin")
        try Self.payload.write(to: file)
        let next = SendableIterator(Self.payload.chunked(into: 50_000))
        let upload = switch source {
        case "file": Request.put("upload-sink").body(fileAt: file)
        case "stream": Request.put("upload-sink").body(length: Int64(Self.payload.count), pulling: { next.next() })
        default: Request.put("upload-sink").body(Self.payload)
        }
        let a = try await style.send(upload, through: transport).get().decode(UploadSinkReply.self)
        #expect(a.length == Self.payload.count && a.sha256 == sha256Hex(Self.payload))

        let get = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get().echo() }
        get.expectPlainGET()
        // Another upload, shorter and different: exactly its own bytes arrive.
        let other = Data((0..<1000).map { UInt8(255 - $0 % 256) })
        let reply = try await transport.reusingAHandle {
            try await style.send(.put("upload-sink").body(other), through: transport).get().decode(UploadSinkReply.self)
        }
        #expect(reply.method == "PUT")
        #expect(reply.length == other.count)
        #expect(reply.sha256 == sha256Hex(other))
        #expect(reply.contentLength == "1000")
    }

    @Test(arguments: ClientStyle.allCases)
    func aGETAfterAMultipartPOSTSendsNoForm(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let form = MultipartForm().text("field", "value").data("blob", Self.payload, filename: "blob.bin")
        let a = try await style.send(.post("echo").multipart(form), through: transport).get().echo()
        #expect(a.header("Content-Type").first?.hasPrefix("multipart/form-data") == true)
        let get = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get().echo() }
        get.expectPlainGET()
    }

    @Test(arguments: ClientStyle.allCases)
    func aPlainGETAfterARangeRequestGetsTheWholeBody(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let range = try await style.send(.get("resource/50000").header("Range", "bytes=1000-"), through: transport).get()
        #expect(range.status.code == 206)
        expectSameBytes(range.body, resourceBytes(1000..<50_000, version: 1))
        let whole = try await transport.reusingAHandle { try await style.send(.get("resource/50000"), through: transport).get() }
        #expect(whole.status.code == 200)
        expectSameBytes(whole.body, resourceBytes(count: 50_000))
        let echo = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get().echo() }
        #expect(echo.header("Range").isEmpty)
    }

    @Test(arguments: ClientStyle.allCases)
    func aPlainGETAfterAResumedDownloadGetsTheWholeBody(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server()) { $0.reusesEasyHandles = true }
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("resumed.bin")
        let partial = scratch.file(".resumed.bin.byhand.curlbridge-partial")
        try resourceBytes(count: 20_000).write(to: partial)
        let resumeData = ResumeData(
            url: "resource/50000", validator: .entityTag(#""res-50000-v1""#), bytesOnDisk: 20_000,
            partialFileURL: partial, destination: destination, expectedLength: 50_000)
        let resumed = try await style.download(.get("resource/50000"), to: destination, resumingFrom: resumeData, through: transport).get()
        #expect(resumed.status.code == 206 && resumed.resumedFromOffset == 20_000)
        expectSameBytes(try Data(contentsOf: destination), resourceBytes(count: 50_000))

        let whole = try await transport.reusingAHandle { try await style.send(.get("resource/50000"), through: transport).get() }
        #expect(whole.status.code == 200)
        expectSameBytes(whole.body, resourceBytes(count: 50_000))
        let echo = try await transport.reusingAHandle { try await style.send(.get("echo"), through: transport).get().echo() }
        #expect(echo.header("Range").isEmpty && echo.header("If-Range").isEmpty)
    }
}
