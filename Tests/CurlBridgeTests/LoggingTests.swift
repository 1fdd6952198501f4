@testable import CurlBridge
import Foundation
import Logging
import Testing

/// The redactor, the per-request debug log and the choice of trace logging, without sockets.
@Suite struct LoggingTests {
    static let redactor = LogRedactor(options: LoggingOptions())

    // MARK: URLs

    @Test(arguments: [
        ("https://user:pass@h.example/", "https://h.example/"),
        ("http://alice@h.example:8080/p?x=1", "http://h.example:8080/p?x=1"),
        ("https://a:b@c@h.example/x@y", "https://h.example/x@y"),
        ("//user:pw@h.example/p", "//h.example/p"),
        ("HTTPS://U:P@H.EXAMPLE", "HTTPS://H.EXAMPLE"),
        ("https://h.example/", "https://h.example/"),
    ])
    func userInfoIsRemoved(url: String, expected: String) {
        #expect(Self.redactor.url(url) == expected)
    }

    @Test(arguments: [
        ("https://h/p?a=1&token=abc&b=2", "https://h/p?a=1&token=<redacted>&b=2"),
        ("https://h/p?Token=abc&API_KEY=k&X-Amz-Signature=s", "https://h/p?Token=<redacted>&API_KEY=<redacted>&X-Amz-Signature=<redacted>"),
        ("https://h/p?api%5Fkey=k", "https://h/p?api%5Fkey=<redacted>"),
        ("https://h/p?token=&token&tokens=1", "https://h/p?token=&token&tokens=1"),
        ("https://h/cb#access_token=abc&state=1", "https://h/cb#access_token=<redacted>&state=1"),
        ("/relative?password=hunter2", "/relative?password=<redacted>"),
        ("echo?code=123&x=token", "echo?code=<redacted>&x=token"),
        ("https://h/p?token=a=b=c", "https://h/p?token=<redacted>"),
    ])
    func sensitiveQueryValuesAreRedacted(url: String, expected: String) {
        #expect(Self.redactor.url(url) == expected)
    }

    @Test func customQueryNamesAreComparedWithoutCase() {
        var options = LoggingOptions(sensitiveQueryNames: [])
        #expect(LogRedactor(options: options).url("/p?token=1") == "/p?token=1")
        options.sensitiveQueryNames = ["X-Session"]
        #expect(LogRedactor(options: options).url("/p?x-session=1&X-SESSION=2") == "/p?x-session=<redacted>&X-SESSION=<redacted>")
    }

    @Test func oddURLsNeverTrapAndRedactionIsStable() {
        let odd = [
            "", ":", "://", "http://", "@", "http://@", "http://@/", "?", "?=", "=?", "&&&", "%", "%zz", "?token=%",
            "a://b@c@d/e", "https://ü:ö@例え.jp/?token=秘密", "http://[::1]:80/?key=v", "#", "##token=x", "?token=x#",
            "http://user:pass@", "mailto:user@h.example?subject=token", "\u{0}\u{1}?token=\u{0}",
        ]
        var generator = SeededBytes(seed: 42)
        let alphabet = Array("ab:/?#&=@%[]+ ~tokenTOKEN🙂".unicodeScalars)
        let random = (0..<2000).map { _ in
            String(String.UnicodeScalarView((0..<generator.next(below: 40)).map { _ in alphabet[generator.next(below: alphabet.count)] }))
        }
        for url in odd + random {
            let once = Self.redactor.url(url)
            #expect(Self.redactor.url(once) == once, "\(url.debugDescription)")
        }
        #expect(Self.redactor.url("https://ü:ö@例え.jp/?token=秘密") == "https://例え.jp/?token=<redacted>")
    }

    // MARK: Header lines

    @Test(arguments: [
        ("Authorization: Bearer abc", "Authorization: <redacted>"),
        ("authorization:Basic YTpi", "authorization: <redacted>"),
        ("Proxy-Authorization: Basic YTpi\r\n", "Proxy-Authorization: <redacted>"),
        ("Cookie: a=1; b=2", "Cookie: <redacted>"),
        ("set-cookie: sid=xyz; Path=/; HttpOnly", "set-cookie: <redacted>"),
        ("X-Api-Key: k-123", "X-Api-Key: <redacted>"),
        ("X-Other: visible", "X-Other: visible"),
        ("Authorization:", "Authorization:"),
        ("Location: https://u:p@h/next?token=t", "Location: https://h/next?token=<redacted>"),
        ("GET /items?token=abc&page=2 HTTP/1.1", "GET /items?token=<redacted>&page=2 HTTP/1.1"),
        ("GET http://u:p@h/x?sig=1 HTTP/1.1", "GET http://h/x?sig=<redacted> HTTP/1.1"),
        ("CONNECT 127.0.0.1:443 HTTP/1.1", "CONNECT 127.0.0.1:443 HTTP/1.1"),
        ("HTTP/1.1 200 OK", "HTTP/1.1 200 OK"),
        (":path: /x?token=abc", ":path: /x?token=<redacted>"),
        ("", ""),
    ])
    func headerLinesLoseSensitiveValues(line: String, expected: String) {
        let redactor = LogRedactor(options: LoggingOptions(), sensitiveHeaderNames: ["x-api-key"])
        #expect(redactor.headerLine(line) == expected)
    }

    // MARK: Free text

    @Test func knownSecretsAreReplacedWhereverTheyAppear() {
        let redactor = LogRedactor(options: LoggingOptions(), secrets: ["alice", "s3cret", "s3cret-long", "ab", ""])
        #expect(redactor.secrets.map { String(decoding: $0, as: UTF8.self) } == ["s3cret-long", "s3cret", "alice"])
        #expect(redactor.values(in: "Server auth using Basic with user 'alice'") == "Server auth using Basic with user '<redacted>'")
        #expect(redactor.values(in: "s3cret-long,s3cret;alicealice") == "<redacted>,<redacted>;<redacted><redacted>")
        #expect(redactor.values(in: "a tab, an abacus") == "a tab, an abacus")  // "ab" is too short to look for
    }

    @Test(arguments: [
        ("h2h3 [authorization: Bearer abc]", "h2h3 [authorization: <redacted>]"),
        ("h2h3 [:path: /x?token=abc]", "h2h3 [:path: /x?token=<redacted>]"),
        ("h2h3 [:method: GET]", "h2h3 [:method: GET]"),
        ("[HTTP/2] [1] [cookie: a=b]c]", "[HTTP/2] [1] [cookie: <redacted>]"),
        ("[HTTP/2] [1] [user-agent: x]", "[HTTP/2] [1] [user-agent: x]"),
        ("Added cookie sid=\"v\\\"1\" for domain h, path /, expire 0", "Added cookie sid=\"<redacted>\" for domain h, path /, expire 0"),
        ("Replaced cookie sid=\"v2\" for domain h, path /, expire 0\n", "Replaced cookie sid=\"<redacted>\" for domain h, path /, expire 0"),
        ("Added cookie sid=\"\" for domain h, path /, expire 0", "Added cookie sid=\"\" for domain h, path /, expire 0"),
        ("Connected to h (127.0.0.1) port 80 (#0) [", "Connected to h (127.0.0.1) port 80 (#0) ["),
    ])
    func curlTextLosesBracketedHeadersAndCookieValues(text: String, expected: String) {
        #expect(Self.redactor.curlText(text) == expected)
    }

    @Test func revealingSecretsTurnsEveryRuleOff() {
        let redactor = LogRedactor(
            options: LoggingOptions(revealsSecretsForDebugging: true), sensitiveHeaderNames: ["x-api-key"], secrets: ["alice"])
        #expect(redactor.url("https://u:p@h/?token=t") == "https://u:p@h/?token=t")
        #expect(redactor.headerLine("Authorization: Bearer abc\r\n") == "Authorization: Bearer abc")
        #expect(redactor.values(in: "user 'alice'") == "user 'alice'")
        #expect(redactor.curlText("h2h3 [cookie: a=b]") == "h2h3 [cookie: a=b]")
    }

    // MARK: Trace logging choice and secrets

    static func trace(_ request: Request, _ adjust: (inout Configuration) throws -> Void = { _ in }) throws -> TransferTrace? {
        var configuration = Configuration()
        try adjust(&configuration)
        return try request.prepared(with: RequestDefaults(configuration)).get().trace
    }

    @Test func curlTraceIsOffUnlessTheEffectiveLoggerIsAtTrace() throws {
        let capture = LogCapture()
        #expect(try Self.trace(.get("https://h.example/")) == nil)  // the default logger: info
        #expect(try Self.trace(.get("https://h.example/")) { $0.logger = capture.logger(level: .debug) } == nil)
        #expect(try Self.trace(.get("https://h.example/")) { $0.logger = capture.logger(level: .trace) } != nil)
        #expect(try Self.trace(.get("https://h.example/").logger(capture.logger(level: .trace))) != nil)
        #expect(try Self.trace(.get("https://h.example/").logger(capture.logger(level: .info))) {
            $0.logger = capture.logger(level: .trace)
        } == nil)
    }

    /// A handler whose level lives in an object, as a program that changes levels at run time
    /// has: the transport holds the configuration's handler, not a snapshot of its level.
    struct SharedLevelHandler: LogHandler {
        let level: PosixLock<Logger.Level>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level {
            get { level.withLock { $0 } }
            set { level.withLock { $0 = newValue } }
        }
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {}
    }

    @Test func aLevelChangedAfterTheTransportWasMadeCountsFromTheNextRequest() throws {
        let level = PosixLock(Logger.Level.info)
        var configuration = Configuration()
        configuration.logger = Logger(label: "shared") { _ in SharedLevelHandler(level: level) }
        let defaults = RequestDefaults(configuration)
        let request = Request.get("https://h.example/")
        #expect(defaults.logging.level(of: request) == .info)
        #expect(try request.prepared(with: defaults).get().trace == nil)
        level.withLock { $0 = .trace }
        #expect(defaults.logging.level(of: request) == .trace)
        #expect(try request.prepared(with: defaults).get().trace != nil)
        // The request's own logger still wins, either way.
        #expect(defaults.logging.level(of: request.logger(LogCapture().logger(level: .error))) == .error)
        level.withLock { $0 = .error }
        #expect(defaults.logging.level(of: request.logger(LogCapture().logger(level: .debug))) == .debug)
        #expect(try request.prepared(with: defaults).get().trace == nil)
    }

    @Test func traceKnowsTheRequestsSecrets() throws {
        let request = Request.get("https://url-user:url%40pass@h.example/p?token=tok%2Fen&page=2")
            .header("X-Api-Key", "key-value", sensitive: true)
            .header("Cookie", "sid=cookie-value; ab=cd")
            .credential(.basic(username: "cred-user", password: "cred-pass"))
        let otherOrigin = try #require(Credential.Origin("https://other.example"))
        let trace = try #require(try Self.trace(request) {
            $0.logger = LogCapture().logger(level: .trace)
            $0.proxy = .through(.http(host: "proxy.example", port: 3128, credentials: .init(user: "proxy-user", password: "proxy-pass")))
            $0.credentials = [otherOrigin: .bearer("configured-token")]
        })
        let secrets = Set(trace.redactor.secrets.map { String(decoding: $0, as: UTF8.self) })
        let expected: Set = [
            "url-user", "url%40pass", "url@pass", "tok%2Fen", "tok/en", "key-value", "cookie-value", "cred-user", "cred-pass",
            "proxy-user", "proxy-pass", "configured-token", "sid=cookie-value; ab=cd",
        ]
        #expect(expected.subtracting(secrets).isEmpty, "missing: \(expected.subtracting(secrets))")
        #expect(!secrets.contains("cd") && !secrets.contains("2"))
        #expect(trace.redactor.sensitiveHeaderNames.contains("x-api-key"))
    }

    // MARK: RequestLog

    /// The request log an executor makes for `request` on a transport whose logger is `logger`.
    static func requestLog(
        _ logger: Logger, _ request: Request, options: LoggingOptions = LoggingOptions(), id: UInt64 = 1
    ) -> RequestLog? {
        var configuration = Configuration()
        configuration.logger = logger
        configuration.logging = options
        let defaults = RequestLogDefaults(configuration)
        return RequestLog(defaults, request: request, id: id, level: defaults.level(of: request))
    }

    @Test func requestLogExistsOnlyAtDebugOrBelow() {
        let capture = LogCapture(), request = Request.get("https://h.example/")
        #expect(Self.requestLog(Logger(label: "default"), request) == nil)
        #expect(Self.requestLog(capture.logger(level: .info), request) == nil)
        #expect(Self.requestLog(capture.logger(level: .debug), request) != nil)
        #expect(Self.requestLog(capture.logger(level: .trace), request) != nil)
        // The request's own logger wins over the configuration's, either way.
        #expect(Self.requestLog(capture.logger(level: .info), request.logger(capture.logger(level: .debug))) != nil)
        #expect(Self.requestLog(capture.logger(level: .debug), request.logger(capture.logger(level: .error))) == nil)
        #expect(capture.lines.isEmpty)
    }

    @Test func requestLogWritesShortMessagesWithRedactedMetadata() throws {
        let capture = LogCapture()
        let request = Request.get("https://u:p@h.example/items?token=t1&page=2")
        let log = try #require(Self.requestLog(capture.logger(level: .debug), request, id: 7))
        log.attemptStarted(request.setHeader("X-Attempt", "1"), attempt: 1)
        log.attemptStarted(.get("items"), attempt: 2, url: "https://h.example/items?sig=s2")
        let failure = RequestError(.connectFailed, "refused", url: request.url)
        log.attemptEnded(attempt: 1, outcome: .failure(failure), duration: .milliseconds(12) + .microseconds(480))
        log.retryScheduled(after: AttemptRecord(number: 1, outcome: .response(status: 503), duration: .milliseconds(3)), delay: .milliseconds(250))
        log.redirected(RedirectHop(status: .found, url: "https://h.example/a?token=t3", location: "https://v:w@o.example/b?code=c4"))
        let metrics = TransferMetrics(
            nameLookup: .zero, connect: .zero, tlsHandshake: .zero, preTransfer: .zero, firstByte: .zero, total: .zero,
            bytesSent: 0, bytesReceived: 0, headerBytes: 0, reusedConnection: false, localPort: 0, remoteAddress: "", remotePort: 0)
        let response = Response(
            status: .ok, headerFields: [:], body: Data(), url: "https://h.example/items", httpVersion: .http1_1, metrics: metrics)
        log.attemptEnded(attempt: 2, outcome: .success(response), duration: .seconds(1))
        log.completed(.success(response), attempts: 2, duration: .milliseconds(1_500))
        log.completed(.failure(failure), attempts: 1, duration: .zero)

        let lines = capture.lines
        #expect(lines.map(\.message) == [
            "attempt started", "attempt started", "attempt ended", "retry scheduled", "redirect followed", "attempt ended",
            "request completed", "request completed",
        ])
        #expect(lines.allSatisfy { $0.level == .debug && $0.metadata["curlbridge.request_id"] == "7" })
        #expect(lines[0].metadata == [
            "curlbridge.request_id": "7", "http.method": "GET", "url": "https://h.example/items?token=<redacted>&page=2",
            "curlbridge.attempt": "1",
        ])
        #expect(lines[1].metadata["url"] == "https://h.example/items?sig=<redacted>")
        #expect(lines[2].metadata["curlbridge.error"] == "connectFailed" && lines[2].metadata["curlbridge.duration_ms"] == "12.480")
        #expect(lines[3].metadata["http.status_code"] == "503" && lines[3].metadata["curlbridge.retry_delay_ms"] == "250.000")
        #expect(lines[4].metadata["url"] == "https://h.example/a?token=<redacted>")
        #expect(lines[4].metadata["curlbridge.location"] == "https://o.example/b?code=<redacted>")
        #expect(lines[5].metadata["http.status_code"] == "200" && lines[5].metadata["curlbridge.duration_ms"] == "1000.000")
        #expect(lines[6].metadata == [
            "curlbridge.request_id": "7", "http.method": "GET", "url": "https://h.example/items?token=<redacted>&page=2",
            "http.status_code": "200", "curlbridge.attempts": "2", "curlbridge.duration_ms": "1500.000",
        ])
        #expect(lines[7].metadata["curlbridge.error"] == "connectFailed" && lines[7].metadata["http.status_code"] == nil)
        #expect(!lines.contains { $0.rendered.contains("t1") || $0.rendered.contains("u:p") || $0.rendered.contains("c4") })
    }

    @Test func requestLogRevealsWhenAskedTo() throws {
        let capture = LogCapture()
        let request = Request.get("https://u:p@h.example/items?token=t1")
        let log = try #require(Self.requestLog(
            capture.logger(level: .debug), request, options: LoggingOptions(revealsSecretsForDebugging: true)))
        log.completed(.failure(RequestError(.cancelled, "cancelled")), attempts: 1, duration: .zero)
        #expect(capture.lines.first?.metadata["url"] == "https://u:p@h.example/items?token=t1")
    }

    @Test(arguments: [
        (Duration.zero, "0.000"), (.microseconds(1), "0.001"), (.nanoseconds(999), "0.000"), (.milliseconds(65_000), "65000.000"),
        (.microseconds(-1500), "-1.500"),
    ])
    func durationsAreMillisecondsWithThreeDecimals(duration: Duration, expected: String) {
        #expect(RequestLog.milliseconds(duration) == .string(expected))
    }
}

/// A deterministic generator of small numbers (a linear congruential generator), for
/// reproducible random inputs.
struct SeededBytes {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// A number in `0..<bound`.
    mutating func next(below bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }
}
