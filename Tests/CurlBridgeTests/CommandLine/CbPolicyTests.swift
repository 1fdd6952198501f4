import CurlBridgeTestServer
import Foundation
import Testing

/// `cb`'s policies: `--retry` against a server that fails first, `-L` and `--max-redirs`, and
/// trust and pinning (`--cacert`, `--pin`, `-k`) on the embedded server's TLS port.
@Suite(.hangGuard) struct CbPolicyTests {
    @Test func retryResendsUntilTheServerRecovers() async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let run = try await Cb().run(["get", "--retry", "2", "-v", "\(server.httpURL)flaky?key=\(key)&failures=2"])
        #expect(run.status == 0, "\(run)")
        #expect(run.text.hasPrefix("ok after 2 failures"), "\(run)")
        #expect(run.error.contains("attempts: 3"), "\(run)")
        #expect(FlakyRoute.requestCount(key: key) == 3)
    }

    @Test func tooFewRetriesLeaveTheFailure() async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let run = try await Cb().run(["get", "--retry", "1", "--fail", "\(server.httpURL)flaky?key=\(key)&failures=2"])
        #expect(run.status == 22, "\(run)")
        #expect(FlakyRoute.requestCount(key: key) == 2)
    }

    @Test func redirectsAreFollowedOnlyWithL() async throws {
        let server = try await Fixture.server()
        let cb = try Cb()
        let unfollowed = try await cb.run(["get", "-i", "\(server.httpURL)redirect/3"])
        #expect(unfollowed.status == 0, "\(unfollowed)")
        #expect(unfollowed.text.hasPrefix("HTTP/1.1 302\r\n"), "\(unfollowed)")
        #expect(unfollowed.text.contains("Location: /redirect/2\r\n"), "\(unfollowed)")

        let followed = try await cb.run(["get", "-L", "-v", "\(server.httpURL)redirect/3"])
        #expect(followed.status == 0, "\(followed)")
        let reply = try JSONDecoder().decode(EchoReply.self, from: followed.output)
        #expect(reply.path == "/redirect/0")
        #expect(followed.error.contains("redirects: 3"), "\(followed)")

        let limited = try await cb.run(["get", "-L", "--max-redirs", "2", "\(server.httpURL)redirect/3"])
        #expect(limited.status == 47, "\(limited)")
        let none = try await cb.run(["get", "-L", "--max-redirs", "0", "\(server.httpURL)redirect/3"])
        #expect(none.status == 47, "as curl -L --max-redirs 0: \(none)")
    }

    @Test func trustAndPinsDecideTheTLSConnection() async throws {
        let server = try await Fixture.server()
        let authority = try temporaryFile(Data(TestServer.certificateAuthorityPEM.utf8))
        defer { try? FileManager.default.removeItem(at: authority) }
        let url = "\(server.httpsURL)json"
        let rightPin = TestServer.serverPublicKeyPin
        let wrongPin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        let cb = try Cb()
        let cases: [([String], Int32)] = [
            (["--cacert", authority.path], 0),
            (["--cacert", authority.path, "--pin", rightPin], 0),
            (["--cacert", authority.path, "--pin", wrongPin], 90),
            (["--cacert", authority.path, "--pin", wrongPin, "--pin", rightPin], 0),
            ([], 60),
            (["--pin", rightPin], 60),
            (["-k", "--pin", rightPin], 0),
            (["-k", "--pin", wrongPin], 90),
            (["--cacert", "/nonexistent/ca.pem"], 23),
        ]
        for (options, expected) in cases {
            let run = try await cb.run(["get"] + options + [url])
            #expect(run.status == expected, "\(options): \(run)")
            if expected == 0 { #expect(run.text == #"{"id":42,"name":"CurlBridge"}"#, "\(options): \(run)") }
        }
    }

    @Test func credentialsGoToTheLoopbackAndElsewhereOverHTTPOnlyWhenAsked() async throws {
        let server = try await Fixture.server()
        let cb = try Cb()
        let basic = try await cb.run(["get", "-u", "u:p:with:colons", "\(server.httpURL)basic-auth/u/p:with:colons"])
        #expect(basic.status == 0, "\(basic)")
        let bearer = try await cb.run(["get", "-H", "Authorization: Bearer t0k", "\(server.httpURL)bearer-auth/t0k"])
        #expect(bearer.status == 0, "\(bearer)")

        let refused = try await cb.run(["get", "-u", "u:p", "http://credentials.invalid/"])
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.error.contains("--plain-http-credentials"), "\(refused)")
        // Allowed, it gets as far as the name lookup.
        let allowed = try await cb.run(["get", "-u", "u:p", "--plain-http-credentials", "http://credentials.invalid/"])
        #expect(allowed.status == 6, "\(allowed)")

        let noPassword = try await cb.run(["get", "-u", "u", "\(server.httpURL)basic-auth/u/p"])
        #expect(noPassword.status == 64, "\(noPassword)")
        #expect(noPassword.error.contains("user:password"), "\(noPassword)")
    }
}
