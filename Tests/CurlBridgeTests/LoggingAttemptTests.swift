import CurlBridge
import CurlBridgeTestServer
import Foundation
import Logging
import Testing

/// The request lifecycle's `debug` lines (``RequestLog``) through a real server, in every style.
@Suite(.hangGuard) struct LoggingAttemptTests {
    @Test(arguments: ClientStyle.allCases)
    func retriesAndRedirectsAreLoggedAtDebugWithRedactedURLs(style: ClientStyle) async throws {
        let capture = LogCapture()
        let transport = Fixture.transport(try await Fixture.server()) {
            $0.logger = capture.logger(level: .debug)
            $0.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .zero)
        }
        let key = UUID().uuidString
        let target = "/flaky?key=\(key)&failures=1"
        let request = Request.get("redirect-to").query("url", target).query("token", "secret-token-0")
        #expect(try await style.send(request, through: transport).get().status.code == 200)

        let lines = capture.lines
        #expect(lines.map(\.message) == [
            "attempt started", "redirect followed", "attempt ended", "retry scheduled",
            "attempt started", "redirect followed", "attempt ended", "request completed",
        ])
        #expect(lines.allSatisfy { $0.level == .debug && $0.metadata["curlbridge.request_id"] == lines[0].metadata["curlbridge.request_id"] })
        #expect(lines.filter { $0.message == "attempt started" }.map { $0.metadata["curlbridge.attempt"] } == ["1", "2"])
        #expect(lines[0].metadata["http.method"] == "GET")
        #expect(lines[0].metadata["url"]?.hasSuffix("token=<redacted>") == true)
        #expect(lines[2].metadata["http.status_code"] == "503" && lines[2].metadata["curlbridge.duration_ms"] != nil)
        #expect(lines[3].metadata["curlbridge.retry_delay_ms"] == "0.000")
        #expect(lines[7].metadata["http.status_code"] == "200" && lines[7].metadata["curlbridge.attempts"] == "2")
        #expect(!lines.contains { $0.rendered.contains("secret-token") })
    }

    @Test(arguments: ClientStyle.allCases)
    func aFailureIsLoggedWithItsCode(style: ClientStyle) async throws {
        let capture = LogCapture()
        let server = try await Fixture.server()
        let transport = Fixture.transport(server) {
            $0.logger = capture.logger(level: .debug)
            $0.redirects = .none
        }
        let error = try #require(await style.send(.get("http://127.0.0.1:\(server.stallPort)/").timeout(idle: .milliseconds(50)), through: transport).failure)
        let completed = try #require(capture.lines.last)
        #expect(completed.message == "request completed")
        #expect(completed.metadata["curlbridge.error"] == error.code.description)
    }
}
