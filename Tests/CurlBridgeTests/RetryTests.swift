import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// Retries through the real lifecycle, against a server that really fails, in all three styles.
@Suite("Retries", .hangGuard)
struct RetryTests {
    /// A policy that retries at once (no backoff), so tests wait for nothing.
    static let immediate = RetryPolicy(maximumAttempts: 3, baseDelay: .zero)

    /// A fresh key, so each test's failures are counted apart.
    private func key() -> String { UUID().uuidString }

    @Test("a server failing twice then succeeding: the third attempt's response, with all three recorded", arguments: ClientStyle.allCases)
    func succeedsOnThirdAttempt(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = key()
        let transport = Fixture.transport(server) { $0.retryPolicy = Self.immediate }
        let response = try await style.send(.get("flaky?key=\(key)&failures=2"), through: transport).get()
        #expect(response.status.code == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "ok after 2 failures\n")
        #expect(response.attempts.map(\.outcome) == [.response(status: 503), .response(status: 503), .response(status: 200)])
        #expect(response.attempts.map(\.number) == [1, 2, 3])
        #expect(response.attempts.map(\.retryDelay) == [.zero, .zero, nil])
        #expect(FlakyRoute.requestCount(key: key) == 3)
    }

    @Test("the last failure is delivered when the attempts run out, and says so", arguments: ClientStyle.allCases)
    func attemptsExhausted(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = key()
        let transport = Fixture.transport(server) { $0.retryPolicy = Self.immediate }
        let response = try await style.send(.get("flaky?key=\(key)&failures=5&status=502"), through: transport).get()
        #expect(response.status.code == 502)
        #expect(response.attempts.count == 3)
        #expect(response.attempts.last?.retryDenial == .attemptsExhausted)
        #expect(FlakyRoute.requestCount(key: key) == 3)
    }

    @Test("connections closed before any answer are retried; the failures are recorded", arguments: ClientStyle.allCases)
    func connectionLostIsRetried(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = key()
        let transport = Fixture.transport(server) { $0.retryPolicy = Self.immediate }
        let response = try await style.send(.get("flaky?key=\(key)&failures=2&mode=close"), through: transport).get()
        #expect(response.status.code == 200)
        #expect(response.attempts.map(\.outcome) == [.failure(.connectionLost), .failure(.connectionLost), .response(status: 200)])
    }

    @Test("a refused connection is retried, and the error carries every attempt", arguments: ClientStyle.allCases)
    func refusedConnection(style: ClientStyle) async throws {
        let refusing = try RefusingPort()
        let transport = Transport(configuration: Configuration(retryPolicy: Self.immediate))
        let error = try #require(await style.send(.get("http://127.0.0.1:\(refusing.port)/"), through: transport).failure)
        #expect(error.code == .connectFailed)
        #expect(error.attempts.map(\.outcome) == Array(repeating: .failure(.connectFailed), count: 3))
        #expect(error.attempts.last?.retryDenial == .attemptsExhausted)
    }

    @Test("Retry-After is waited for: the request takes at least that long, measured by the library", arguments: ClientStyle.allCases)
    func retryAfterHonoured(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = key()
        let durations = Mutex<[Duration]>([])
        let transport = Fixture.transport(server) {
            $0.retryPolicy = Self.immediate
            $0.eventMonitors = [ClosureEventMonitor(requestDidComplete: { _, _, _, duration in durations.withLock { $0.append(duration) } })]
        }
        let response = try await style.send(.get("flaky?key=\(key)&failures=1&retry-after=1"), through: transport).get()
        #expect(response.status.code == 200)
        #expect(response.attempts.first?.retryDelay == .seconds(1))
        await transport.drainEvents()
        let waited = try #require(await poll(within: .seconds(30), until: { !durations.withLock(\.isEmpty) }) ? durations.withLock { $0.first } : nil)
        #expect(waited >= .seconds(1))
    }

    @Test("a Retry-After beyond the cap is not retried: CurlBridge never retries sooner than asked", arguments: ClientStyle.allCases)
    func retryAfterBeyondCap(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = key()
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .zero, maximumRetryAfter: .seconds(5))
        let transport = Fixture.transport(server) { $0.retryPolicy = policy }
        let response = try await style.send(.get("flaky?key=\(key)&failures=1&retry-after=120&status=429"), through: transport).get()
        #expect(response.status.code == 429)
        #expect(response.attempts.count == 1)
        #expect(response.attempts.first?.retryDenial == .retryAfterTooLong)
        #expect(FlakyRoute.requestCount(key: key) == 1)
    }

    @Test("a POST is not retried unless marked idempotent, which also sends its key", arguments: ClientStyle.allCases)
    func postNeedsOptIn(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server) { $0.retryPolicy = Self.immediate }
        let plainKey = key()
        let plain = try await style.send(.post("flaky?key=\(plainKey)&failures=1").body(Data("x".utf8)), through: transport).get()
        #expect(plain.status.code == 503)
        #expect(plain.attempts.first?.retryDenial == .notIdempotent)
        #expect(FlakyRoute.requestCount(key: plainKey) == 1)

        let markedKey = key()
        let marked = try await style.send(
            .post("flaky?key=\(markedKey)&failures=1").body(Data("x".utf8)).idempotent(key: "order-17"), through: transport
        ).get()
        #expect(marked.status.code == 200)
        #expect(marked.attempts.count == 2)
        #expect(FlakyRoute.requestCount(key: markedKey) == 2)
    }

    @Test("a one-shot body stream is never sent twice", arguments: ClientStyle.allCases)
    func streamBodyNotResent(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = key()
        let transport = Fixture.transport(server) { $0.retryPolicy = Self.immediate }
        let sent = Mutex(false)
        let request = Request.put("flaky?key=\(key)&failures=1").body(length: 3) {
            sent.withLock { sent in
                defer { sent = true }
                return sent ? nil : Data("abc".utf8)
            }
        }
        let response = try await style.send(request, through: transport).get()
        #expect(response.status.code == 503)
        #expect(response.attempts.first?.retryDenial == .bodyNotRewindable)
        #expect(FlakyRoute.requestCount(key: key) == 1)
    }

    @Test("a spent retry budget stops retries and says so", arguments: ClientStyle.allCases)
    func budgetExhausted(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let transport = Fixture.transport(server) {
            $0.retryPolicy = RetryPolicy(maximumAttempts: 5, baseDelay: .zero)
            $0.retryBudget = RetryBudget(ratio: 0, minimumRetries: 1)
        }
        let key = key()
        let response = try await style.send(.get("flaky?key=\(key)&failures=10"), through: transport).get()
        #expect(response.status.code == 503)
        #expect(response.attempts.count == 2)
        #expect(response.attempts.last?.retryDenial == .budgetExhausted)
        #expect(FlakyRoute.requestCount(key: key) == 2)
    }

    @Test("a retry that would outlast the total timeout is not scheduled: the last outcome comes at once", arguments: ClientStyle.allCases)
    func deadlineDuringBackoff(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = key()
        let transport = Fixture.transport(server) { $0.retryPolicy = Self.immediate }
        let response = try await style.send(
            .get("flaky?key=\(key)&failures=1&retry-after=30").timeout(total: .seconds(20)), through: transport
        ).get()
        #expect(response.status.code == 503)
        #expect(response.attempts.first?.retryDenial == .deadline)
        #expect(FlakyRoute.requestCount(key: key) == 1)
    }

    @Test("a request policy replaces the configuration's", arguments: ClientStyle.allCases)
    func perRequestPolicy(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = key()
        let transport = Fixture.transport(server)
        let response = try await style.send(.get("flaky?key=\(key)&failures=1").retries(Self.immediate), through: transport).get()
        #expect(response.status.code == 200)
        #expect(response.attempts.count == 2)
    }

    @Test("no policy, no retry: one attempt, recorded", arguments: ClientStyle.allCases)
    func noPolicy(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = key()
        let response = try await style.send(.get("flaky?key=\(key)&failures=1"), through: Fixture.transport(server)).get()
        #expect(response.status.code == 503)
        #expect(response.attempts.map(\.outcome) == [.response(status: 503)])
        #expect(response.attempts.first?.retryDenial == .attemptsExhausted)
    }
}

/// Retries of calls that stream or download: a failure response is held back from the consumer
/// until the retry decision, so it never sees a retried failure's head or body.
@Suite("Retries of transfers", .hangGuard)
struct TransferRetryTests {
    @Test("a download retried after 503s writes only the final body", arguments: ClientStyle.allCases)
    func downloadRetried(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let transport = Fixture.transport(server) { $0.retryPolicy = RetryTests.immediate }
        let destination = scratch.file("flaky.txt")
        let download = try await style.download(.get("flaky?key=\(key)&failures=2"), to: destination, through: transport).get()
        #expect(download.status.code == 200)
        #expect(download.attempts.map(\.outcome) == [.response(status: 503), .response(status: 503), .response(status: 200)])
        #expect(try String(contentsOf: destination, encoding: .utf8) == "ok after 2 failures\n")
    }

    @Test("a stream retried after a 503 delivers only the final head and body", arguments: ClientStyle.allCases)
    func streamRetried(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let transport = Fixture.transport(server) { $0.retryPolicy = RetryTests.immediate }
        let outcome = await style.stream(.get("flaky?key=\(key)&failures=1"), through: transport)
        #expect(outcome.error == nil)
        #expect(outcome.head?.status.code == 200)
        #expect(String(decoding: outcome.body, as: UTF8.self) == "ok after 1 failures\n")
        #expect(outcome.orderViolations == 0)
    }

    @Test("a failure that is not retried after all reaches the stream whole: head, then the held body", arguments: ClientStyle.allCases)
    func heldFailureReleased(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let transport = Fixture.transport(server) { $0.retryPolicy = RetryTests.immediate }
        let outcome = await style.stream(.get("flaky?key=\(key)&failures=5&status=500"), through: transport)
        #expect(outcome.error == nil)
        #expect(outcome.head?.status.code == 500)
        #expect(String(decoding: outcome.body, as: UTF8.self) == "failure 3 of 5\n")
        #expect(outcome.orderViolations == 0)
    }
}
