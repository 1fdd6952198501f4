import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Adapters and retriers run by the lifecycle, in all three styles.
@Suite("Interceptors", .hangGuard)
struct InterceptorTests {
    private static let order = HTTPField.Name("X-Order")!

    private struct Refusal: Error, CustomStringConvertible {
        var description: String { "refused by the test" }
    }

    @Test("adapters run before every attempt, client-wide first, and see the attempt number", arguments: ClientStyle.allCases)
    func adaptersRunPerAttempt(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let seen = Mutex<[Int]>([])
        let transport = Fixture.transport(server) {
            $0.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .zero)
            $0.interceptors = [Interceptor(adapt: { request, context in
                seen.withLock { $0.append(context.attempt) }
                var adapted = request
                adapted.headerFields[Self.order] = "client"
                return adapted
            })]
        }
        let request = Request.get("flaky?key=\(key)&failures=2").intercepted(by: Interceptor(adapt: { request, _ in
            var adapted = request
            adapted.headerFields[Self.order] = (request.headerFields[Self.order] ?? "") + ",request"
            return adapted
        }))
        let response = try await style.send(request, through: transport).get()
        #expect(response.status.code == 200)
        #expect(seen.withLock { $0 } == [1, 2, 3])

        let echoed = try await style.send(.get("echo").intercepted(by: Interceptor(adapt: { request, _ in
            var adapted = request
            adapted.headerFields[Self.order] = (request.headerFields[Self.order] ?? "") + ",request"
            return adapted
        })), through: transport).get().echo()
        #expect(echoed.header("X-Order") == ["client,request"])
    }

    @Test("an adapter that throws fails the request with its error, and nothing is sent", arguments: ClientStyle.allCases)
    func throwingAdapter(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let transport = Fixture.transport(server) { $0.interceptors = [Interceptor(adapt: { _, _ in throw Refusal() })] }
        let error = try #require(await style.send(.get("flaky?key=\(key)&failures=0"), through: transport).failure)
        #expect(error.code == .adaptationFailed)
        #expect(error.underlying is Refusal)
        #expect(error.attempts.isEmpty)
        await transport.drainEvents()
        #expect(FlakyRoute.requestCount(key: key) == 0)

        let custom = RequestError(.invalidHeader, "the adapter's own request error")
        let passing = Fixture.transport(server) { $0.interceptors = [Interceptor(adapt: { _, _ in throw custom })] }
        let passed = try #require(await style.send(.get("echo"), through: passing).failure)
        #expect(passed.code == .invalidHeader)
        #expect(passed.message == "the adapter's own request error")
    }

    @Test("a retrier that fails the request: its error, carrying the response it judged", arguments: ClientStyle.allCases)
    func failingRetrier(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let transport = Fixture.transport(server) {
            $0.interceptors = [Interceptor(retry: { _, _, _ in .fail(Refusal()) })]
        }
        let error = try #require(await style.send(.get("flaky?key=\(key)&failures=1"), through: transport).failure)
        #expect(error.code == .retrierFailed)
        #expect(error.underlying is Refusal)
        #expect(error.response?.status.code == 503)
        #expect(error.attempts.count == 1)
    }

    @Test("a retrier's retry needs no policy and is not limited to idempotent methods; the first opinion wins", arguments: ClientStyle.allCases)
    func retrierDecides(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let asked = Mutex<[String]>([])
        let transport = Fixture.transport(server) {
            $0.interceptors = [Interceptor(retry: { _, _, _ in
                asked.withLock { $0.append("client") }
                return .fail(Refusal())
            })]
        }
        let request = Request.post("flaky?key=\(key)&failures=1").body("x").intercepted(by: Interceptor(retry: { _, outcome, context in
            asked.withLock { $0.append("request \(context.attempt) \(outcome.statusCode ?? 0)") }
            return .retryAfter(.milliseconds(10))
        }))
        let response = try await style.send(request, through: transport).get()
        #expect(response.status.code == 200)
        #expect(response.attempts.map(\.retryDelay) == [.milliseconds(10), nil])
        #expect(asked.withLock { $0 } == ["request 1 503"])
    }

    @Test("retriers retry at most ten attempts in all", arguments: ClientStyle.allCases)
    func retrierAttemptLimit(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let key = UUID().uuidString
        let transport = Fixture.transport(server) { $0.interceptors = [Interceptor(retry: { _, _, _ in .retry })] }
        let response = try await style.send(.get("flaky?key=\(key)&failures=100"), through: transport).get()
        #expect(response.status.code == 503)
        #expect(response.attempts.count == 10)
        #expect(response.attempts.last?.retryDenial == .attemptsExhausted)
        #expect(FlakyRoute.requestCount(key: key) == 10)
    }
}
