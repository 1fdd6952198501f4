import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// Multipart bodies sent through curl's MIME API and parsed by multipart-kit on the server.
@Suite(.hangGuard) struct MultipartTests {
    /// A temporary file with `count` pattern bytes; removed by the caller.
    static func temporaryFile(count: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("curlbridge-\(UUID().uuidString).bin")
        try TestServer.patternBody(0..<count, version: 7).write(to: url)
        return url
    }

    static func form(file: URL) -> MultipartForm {
        MultipartForm()
            .text("title", "Holiday – été")
            .text("quote\"d name", "x")
            .data("avatar", Data([0, 1, 2, 255]), filename: "face \"1\".png", contentType: "image/png")
            .data("raw", Data("plain bytes".utf8))
            .file("archive", at: file, contentType: "application/octet-stream")
    }

    func reply(_ response: Response) throws -> MultipartReply {
        try response.validate().decode(MultipartReply.self)
    }

    @Test(arguments: ClientStyle.allCases)
    func partsArriveAsSentWithCurlsEscapingAndALength(style: ClientStyle) async throws {
        let file = try Self.temporaryFile(count: 3_000_000)
        defer { try? FileManager.default.removeItem(at: file) }
        let transport = Fixture.transport(try await Fixture.server())
        let received = try reply(try await style.send(.post("multipart").multipart(Self.form(file: file)), through: transport).get())
        let parts = received.parts
        #expect(parts.map(\.name) == ["title", "quote%22d name", "avatar", "raw", "archive"])
        #expect(parts.map(\.filename) == [nil, nil, "face %221%22.png", nil, file.lastPathComponent])
        #expect(parts[0].body == Data("Holiday – été".utf8).base64EncodedString())
        #expect(parts[2].contentType == "image/png" && parts[2].body == Data([0, 1, 2, 255]).base64EncodedString())
        #expect(parts[3].contentType == nil && parts[3].body == Data("plain bytes".utf8).base64EncodedString())
        #expect(parts[4].size == 3_000_000)
        #expect(parts[4].body == (try Data(contentsOf: file)).base64EncodedString())
        #expect(received.contentLength != nil)  // every size known: no chunked upload
    }

    @Test func boundariesAreRandomPerRequest() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let form = MultipartForm().text("a", "1")
        var boundaries = Set<String>()
        for _ in 0..<3 {
            boundaries.insert(try reply(try await ClientStyle.async.send(.post("multipart").multipart(form), through: transport).get()).boundary)
        }
        #expect(boundaries.count == 3)
        #expect(boundaries.allSatisfy { $0.count >= 30 })
    }

    @Test(arguments: ClientStyle.allCases)
    func otherMethodsCarryMultipartToo(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let echo = try await style.send(Request.put("echo").multipart(MultipartForm().text("a", "1")), through: transport).get().echo()
        #expect(echo.method == "PUT")
        #expect(echo.header("Content-Type").first?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    static let badForms: [(String, RequestError.Code, @Sendable () -> MultipartForm)] = [
        ("missing file", .fileIO, { MultipartForm().file("f", at: URL(fileURLWithPath: "/nonexistent/curlbridge.bin")) }),
        ("directory", .fileIO, { MultipartForm().file("f", at: URL(fileURLWithPath: "/tmp")) }),
        ("device", .fileIO, { MultipartForm().file("f", at: URL(fileURLWithPath: "/dev/zero")) }),
        ("CR/LF in a part name", .invalidHeader, { MultipartForm().text("a\r\nContent-Type: evil", "1") }),
        ("LF in a filename", .invalidHeader, { MultipartForm().data("a", Data(), filename: "x\ny") }),
        ("NUL in a part type", .invalidHeader, { MultipartForm().data("a", Data(), contentType: "text/plain\0") }),
    ]

    @Test(arguments: ClientStyle.allCases, badForms.map(\.0))
    func badFormsAreRefusedWithNothingSent(style: ClientStyle, name: String) async throws {
        let (_, code, make) = try #require(Self.badForms.first { $0.0 == name })
        let listener = try SilentListener()
        let error = await style.send(Request.post(listener.url).multipart(make()), through: Transport()).failure
        #expect(error?.code == code)
        #expect(listener.connectionAttempts() == 0)
    }

    @Test func theCurlCLIRunningTheDescriptionSendsTheSameParts() async throws {
        let file = try Self.temporaryFile(count: 10_000)
        defer { try? FileManager.default.removeItem(at: file) }
        let transport = Fixture.transport(try await Fixture.server())
        let request = Request.post("multipart").multipart(Self.form(file: file).text("typed", "t").data("blob", Data([9, 0, 9]), filename: "b.bin"))
        let sent = try reply(try await ClientStyle.async.send(request, through: transport).get())
        let (status, output) = try await runCurlCommand(request.curlDescription(for: transport.configuration))
        #expect(status == 0)
        let replayed = try JSONDecoder().decode(MultipartReply.self, from: output)
        #expect(replayed.parts.map(\.name) == sent.parts.map(\.name))
        #expect(replayed.parts.map(\.filename) == sent.parts.map(\.filename))
        #expect(replayed.parts.map(\.contentType) == sent.parts.map(\.contentType))
        #expect(replayed.parts.map(\.body) == sent.parts.map(\.body))
    }
}
