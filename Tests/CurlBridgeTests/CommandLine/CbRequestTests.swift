import CurlBridgeTestServer
import Foundation
import Testing

/// `cb` sending requests to the embedded server: each verb, headers, the three kinds of body,
/// `-i`, `-v` and the exit codes of failures before and after a response.
@Suite(.hangGuard) struct CbRequestTests {
    @Test func getPrintsTheBodyAndNothingElse() async throws {
        let server = try await Fixture.server()
        let run = try await Cb().run(["get", "\(server.httpURL)json"])
        #expect(run.status == 0, "\(run)")
        #expect(run.text == #"{"id":42,"name":"CurlBridge"}"#, "\(run)")
        #expect(run.error.isEmpty, "\(run)")
    }

    @Test func headPrintsTheResponseHead() async throws {
        let server = try await Fixture.server()
        let run = try await Cb().run(["head", "\(server.httpURL)bytes/100"])
        #expect(run.status == 0, "\(run)")
        #expect(run.text.hasPrefix("HTTP/1.1 200\r\n"), "\(run)")
        #expect(run.text.lowercased().contains("content-length: 100\r\n"), "\(run)")
        #expect(run.text.hasSuffix("\r\n\r\n"), "no body: \(run)")
    }

    @Test func includePutsTheHeadBeforeTheBody() async throws {
        let server = try await Fixture.server()
        let run = try await Cb().run(["get", "-i", "\(server.httpURL)json"])
        #expect(run.text.hasPrefix("HTTP/1.1 200\r\n"), "\(run)")
        #expect(run.text.hasSuffix("\r\n\r\n" + #"{"id":42,"name":"CurlBridge"}"#), "\(run)")
    }

    @Test func postJSONSendsItWithJSONTypes() async throws {
        let server = try await Fixture.server()
        let run = try await Cb().run(["post", "--json", #"{"name":"Ada"}"#, "-H", "X-Trace: abc", "\(server.httpURL)echo"])
        #expect(run.status == 0, "\(run)")
        let reply = try JSONDecoder().decode(EchoReply.self, from: run.output)
        #expect(reply.method == "POST")
        #expect(String(decoding: reply.bodyData, as: UTF8.self) == #"{"name":"Ada"}"#)
        #expect(reply.header("Content-Type") == ["application/json"])
        #expect(reply.header("Accept") == ["application/json"])
        #expect(reply.header("X-Trace") == ["abc"])
    }

    @Test func dataSendsAFormOrAFilesBytes() async throws {
        let server = try await Fixture.server()
        let inline = try await Cb().run(["put", "-d", "user=ada&remember=yes", "\(server.httpURL)echo"])
        let inlineReply = try JSONDecoder().decode(EchoReply.self, from: inline.output)
        #expect(inlineReply.method == "PUT")
        #expect(inlineReply.header("Content-Type") == ["application/x-www-form-urlencoded"])
        #expect(String(decoding: inlineReply.bodyData, as: UTF8.self) == "user=ada&remember=yes")

        let file = try temporaryFile(Data([0, 1, 2, 255, 10, 13]))
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try await Cb().run(["patch", "-d", "@" + file.path, "-H", "Content-Type: application/octet-stream", "\(server.httpURL)echo"])
        let fileReply = try JSONDecoder().decode(EchoReply.self, from: fromFile.output)
        #expect(fileReply.method == "PATCH")
        #expect(fileReply.header("Content-Type") == ["application/octet-stream"])
        #expect(fileReply.bodyData == Data([0, 1, 2, 255, 10, 13]))
    }

    @Test func formFieldsSendAMultipartBody() async throws {
        let server = try await Fixture.server()
        let file = try temporaryFile(Data("a photo, say".utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await Cb().run([
            "post", "-F", "title=Holiday", "-F", "photo=@\(file.path);type=image/jpeg", "\(server.httpURL)multipart",
        ])
        #expect(run.status == 0, "\(run)")
        let reply = try JSONDecoder().decode(MultipartReply.self, from: run.output)
        #expect(reply.parts.map(\.name) == ["title", "photo"])
        #expect(reply.parts.first.flatMap { Data(base64Encoded: $0.body) } == Data("Holiday".utf8))
        #expect(reply.parts.last?.filename == file.lastPathComponent)
        #expect(reply.parts.last?.contentType == "image/jpeg")
        #expect(reply.parts.last?.size == 12)
    }

    @Test func deleteSendsADelete() async throws {
        let server = try await Fixture.server()
        let run = try await Cb().run(["delete", "\(server.httpURL)echo/item/7"])
        let reply = try JSONDecoder().decode(EchoReply.self, from: run.output)
        #expect(reply.method == "DELETE" && reply.path == "/echo/item/7", "\(run)")
    }

    @Test func verbosePrintsTheRedactedCurlCommandAndTheMetrics() async throws {
        let server = try await Fixture.server()
        let authority = try temporaryFile(Data(TestServer.certificateAuthorityPEM.utf8))
        defer { try? FileManager.default.removeItem(at: authority) }
        let run = try await Cb().run([
            "get", "-v", "--cacert", authority.path, "-H", "Authorization: Bearer hunter2", "\(server.httpsURL)json",
        ])
        #expect(run.status == 0, "\(run)")
        #expect(run.error.contains("* curl --globoff '\(server.httpsURL)json'"), "\(run)")
        #expect(run.error.contains("Authorization: <redacted>"), "\(run)")
        #expect(!run.error.contains("hunter2"), "\(run)")
        #expect(run.error.contains("* HTTP/2 200 from 127.0.0.1:\(server.httpsPort)"), "\(run)")
        #expect(run.error.contains("* time: dns "), "\(run)")
        #expect(run.error.contains("* bytes: sent 0, received 29 "), "\(run)")
        #expect(run.text == #"{"id":42,"name":"CurlBridge"}"#, "stdout keeps the body only: \(run)")
    }

    @Test func anHTTPErrorStatusFailsOnlyWithFail() async throws {
        let server = try await Fixture.server()
        let plain = try await Cb().run(["get", "\(server.httpURL)status/404"])
        #expect(plain.status == 0, "\(plain)")
        #expect(!plain.output.isEmpty, "the error page is printed: \(plain)")
        let failing = try await Cb().run(["get", "--fail", "\(server.httpURL)status/404"])
        #expect(failing.status == 22, "\(failing)")
        #expect(failing.output.isEmpty, "\(failing)")
        #expect(failing.error.contains("HTTP 404"), "\(failing)")
    }

    @Test func failuresExitWithTheirOwnCodes() async throws {
        let server = try await Fixture.server()
        let cb = try Cb()
        let refused = try await cb.run(["get", "http://127.0.0.1:1/"])
        #expect(refused.status == 7, "connection refused: \(refused)")
        let timedOut = try await cb.run(["get", "--max-time", "0.5", "\(server.httpURL)never-respond"])
        #expect(timedOut.status == 28, "timeout: \(timedOut)")
        let missingFile = try await cb.run(["post", "-d", "@/nonexistent/body", "\(server.httpURL)echo"])
        #expect(missingFile.status == 23, "missing body file: \(missingFile)")
        let truncated = try await cb.run(["get", "\(server.httpURL)close-mid-body"])
        #expect(truncated.status == 18, "body cut short: \(truncated)")
    }

    @Test func usageErrorsExit64() async throws {
        let server = try await Fixture.server()
        let cb = try Cb()
        for arguments in [
            ["get"],
            ["get", "-H", "no colon", "\(server.httpURL)json"],
            ["get", "-d", "a", "--json", "{}", "\(server.httpURL)json"],
            ["get", "--resume", "\(server.httpURL)json"],
            ["get", "ftp://127.0.0.1/file"],
            ["get", "--pin", "sha256//not-a-digest", "\(server.httpsURL)json"],
            ["fetch", "\(server.httpURL)json"],
            ["get", "-H", "Authorization: Bearer hunter2", "http://api.invalid/json"],  // a secret over plain http
        ] {
            let run = try await cb.run(arguments)
            #expect(run.status == 64, "\(arguments): \(run)")
            #expect(run.output.isEmpty, "\(arguments): \(run)")
        }
    }

    @Test func helpDocumentsTheExitCodes() async throws {
        let run = try await Cb().run(["--help"])
        #expect(run.status == 0, "\(run)")
        for line in ["Exit status", "   22  HTTP status of 400 or more with --fail", "   90  the server's key does not match --pin"] {
            #expect(run.text.contains(line), "\(line): \(run)")
        }
    }
}

/// A new file in the temporary directory holding `data`.
func temporaryFile(_ data: Data) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cb-test-\(UUID().uuidString)")
    try data.write(to: url)
    return url
}
