import CurlBridge
import CurlBridgeTestServer
import Foundation
import Logging
import Testing

/// Logging against the loopback server, in every style: curl's verbose output at `trace` level,
/// redacted; canary secrets sent everywhere a request can carry one never reach a log line.
@Suite(.hangGuard) struct LoggingTraceTests {
    /// Secrets sent by the canary requests; none may appear in any log line.
    enum Canary {
        static let bearer = "canary-bearer-91b2c7"
        static let user = "canary-user-3d4f0a", password = "canary-pass-8e7a55"
        static let urlUser = "canary-uinfo-user-1f", urlPassword = "canary-uinfo-pass-2e"
        static let token = "canary-token-6a9c3d"
        static let cookie = "canary-cookie-5c1e77"
        static let apiKey = "canary-apikey-0f1342"
        static let proxyUser = "canary-proxy-user-77", proxyPassword = "canary-proxy-pass-88"

        static let all = [bearer, user, password, urlUser, urlPassword, token, cookie, apiKey, proxyUser, proxyPassword]
        /// What HTTP Basic makes of the credentials.
        static let encoded = [
            Data("\(user):\(password)".utf8).base64EncodedString(),
            Data("\(proxyUser):\(proxyPassword)".utf8).base64EncodedString(),
            Data("\(urlUser):\(urlPassword)".utf8).base64EncodedString(),
        ]
    }

    /// `url` (absolute) with the canary user info.
    static func withUserInfo(_ url: URL) -> String {
        url.absoluteString.replacingOccurrences(of: "://", with: "://\(Canary.urlUser):\(Canary.urlPassword)@")
    }

    /// Sends the canary requests through a proxy demanding the canary proxy credentials, at
    /// `trace` level: one that makes the server set the canary cookie, one with the
    /// `Authorization` header, one with a ``Credential``; each also with user info in its URL, a
    /// `token` query value, the cookie (from the jar) and a sensitive header. Returns what
    /// `capture` caught.
    static func sendCanaries(
        _ style: ClientStyle, tls: Bool, options: LoggingOptions, capture: LogCapture
    ) async throws -> [LogCapture.Line] {
        let server = try await Fixture.server()
        let proxy = try await TestProxy.start(credentials: (Canary.proxyUser, Canary.proxyPassword))
        let credentials = ProxyServer.Credentials(user: Canary.proxyUser, password: Canary.proxyPassword)
        let transport = Fixture.transport(server, tls: tls) {
            $0.logger = capture.logger(level: .trace)
            $0.logging = options
            $0.allowsCredentialsOverPlainHTTP = true
            $0.proxy = .through(.http(host: "127.0.0.1", port: proxy.httpPort, credentials: credentials))
        }
        let base = withUserInfo(tls ? server.httpsURL : server.httpURL)
        let setCookie = Request.get(base + "response-headers")
            .query("Set-Cookie", "session=\(Canary.cookie); Path=/").query("token", Canary.token)
        #expect(try await style.send(setCookie, through: transport).get().status == .ok)

        let withHeader = Request.get(base + "echo/header").query("token", Canary.token)
            .header("Authorization", "Bearer \(Canary.bearer)")
            .header("X-Api-Key", Canary.apiKey, sensitive: true)
        let headerEcho = try await style.send(withHeader, through: transport).get().echo()
        let withCredential = Request.get(base + "echo/credential").query("token", Canary.token)
            .credential(.basic(username: Canary.user, password: Canary.password))
            .header("X-Api-Key", Canary.apiKey, sensitive: true)
        let credentialEcho = try await style.send(withCredential, through: transport).get().echo()

        // The secrets were really sent, so that their absence from the log means something.
        #expect(headerEcho.header("Authorization") == ["Bearer \(Canary.bearer)"])
        #expect(credentialEcho.header("Authorization") == ["Basic \(Canary.encoded[0])"])
        for echo in [headerEcho, credentialEcho] {
            #expect(echo.header("X-Api-Key") == [Canary.apiKey])
            #expect(echo.header("Cookie") == ["session=\(Canary.cookie)"])
            #expect(echo.query?.contains(Canary.token) == true)
        }
        // One record per forwarded request, or one tunnel for all three.
        #expect(!proxy.records.isEmpty && proxy.records.allSatisfy(\.accepted))
        try await proxy.shutdown()
        return capture.lines
    }

    @Test(arguments: ClientStyle.allCases, [false, true])
    func noCanarySecretReachesAnyLogLine(style: ClientStyle, tls: Bool) async throws {
        let capture = LogCapture()
        var options = LoggingOptions()
        options.sensitiveQueryNames.insert("Set-Cookie")  // the route that sets the cookie takes it in the query
        let lines = try await Self.sendCanaries(style, tls: tls, options: options, capture: capture)

        let leaks = lines.filter { line in (Canary.all + Canary.encoded).contains { line.rendered.contains($0) } }
        #expect(leaks.isEmpty, "leaked: \(leaks.map(\.description).joined(separator: "\n"))")

        // Lines were logged, curl's among them, with the secrets' places marked.
        func logged(_ info: String, _ text: String) -> Bool {
            lines.contains { $0.metadata["curlbridge.curl_info"] == info && $0.message.lowercased().contains(text) }
        }
        #expect(lines.allSatisfy { $0.metadata["curlbridge.request_id"] != nil })
        #expect(lines.contains { $0.metadata["curlbridge.curl_info"] == "text" })
        #expect(logged("header_out", "authorization: <redacted>"))
        #expect(logged("header_out", "proxy-authorization: <redacted>"))
        #expect(logged("header_out", "x-api-key: <redacted>"))
        #expect(logged("header_out", "cookie: <redacted>"))
        #expect(logged("header_out", "token=<redacted>"))
        #expect(logged("header_in", "set-cookie: <redacted>"))
        #expect(logged("text", "cookie session=\"<redacted>\""))
        #expect(lines.contains { $0.metadata["curlbridge.curl_info"] == "data_in" && $0.metadata["curlbridge.bytes"] != nil })
        // The lifecycle's debug lines too.
        #expect(lines.filter { $0.level == .debug && $0.message == "request completed" }.count == 3)
        #expect(lines.contains { $0.message == "attempt started" && $0.metadata["url"]?.contains("token=<redacted>") == true })
    }

    @Test(arguments: ClientStyle.allCases)
    func revealingSecretsForDebuggingShowsThem(style: ClientStyle) async throws {
        let capture = LogCapture()
        let lines = try await Self.sendCanaries(
            style, tls: true, options: LoggingOptions(revealsSecretsForDebugging: true), capture: capture)
        let text = lines.map(\.rendered).joined(separator: "\n")
        for secret in [Canary.bearer, Canary.token, Canary.cookie, Canary.apiKey, Canary.encoded[0], Canary.encoded[1]] {
            #expect(text.contains(secret), "\(secret) should be logged")
        }
        #expect(!text.contains("<redacted>"))
    }

    @Test(arguments: ClientStyle.allCases)
    func defaultLevelLogsNothingPerRequest(style: ClientStyle) async throws {
        let capture = LogCapture()
        let transport = Fixture.transport(try await Fixture.server()) {
            $0.logger = capture.logger(level: .info)
            $0.allowsCredentialsOverPlainHTTP = true
        }
        #expect(try await style.send(.get("echo").header("Authorization", "Bearer abc"), through: transport).get().status == .ok)
        #expect(try await style.send(.get("status/503"), through: transport).get().status.code == 503)
        #expect(capture.lines.isEmpty)
    }

    @Test(arguments: ClientStyle.allCases)
    func requestLoggerReplacesTheConfigurationsForThatRequest(style: ClientStyle) async throws {
        let transportCapture = LogCapture(), requestCapture = LogCapture()
        let transport = Fixture.transport(try await Fixture.server()) { $0.logger = transportCapture.logger(level: .info) }
        var logger = requestCapture.logger(level: .trace)
        logger[metadataKey: "order"] = "42"
        #expect(try await style.send(.get("echo/mine").logger(logger), through: transport).get().status == .ok)
        #expect(try await style.send(.get("echo/plain"), through: transport).get().status == .ok)
        let lines = requestCapture.lines
        #expect(lines.contains { $0.message.hasPrefix("> GET /echo/mine") })
        #expect(!lines.contains { $0.message.contains("/echo/plain") })
        #expect(lines.allSatisfy { $0.level == .trace || $0.level == .debug })
        #expect(lines.allSatisfy { $0.metadata["order"] == "42" })
        #expect(transportCapture.lines.isEmpty)
    }
}
