@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// The interceptor driven by hand: adapt and retry called directly with made-up outcomes, no
/// sockets. The same behaviour through the three clients is in
/// ``AuthenticationInterceptorClientTests``.
@Suite("AuthenticationInterceptor", .hangGuard)
struct AuthenticationInterceptorTests {
    private typealias Interceptor = AuthenticationInterceptor<TestAuthenticator>

    private static let url = "https://api.example.com/resource"
    private static let context = AttemptContext(requestID: 1, attempt: 1, previousAttempts: [])

    /// A response with `status`, as the transport would deliver it.
    private static func response(_ status: Int) -> AttemptOutcome {
        let metrics = TransferMetrics(
            nameLookup: .zero, connect: .zero, tlsHandshake: .zero, preTransfer: .zero, firstByte: .zero, total: .zero,
            bytesSent: 0, bytesReceived: 0, headerBytes: 0, reusedConnection: false,
            localPort: 0, remoteAddress: "", remotePort: 0)
        return .response(Response(
            status: .init(code: status), headerFields: [:], body: Data(), url: url, httpVersion: .http2, metrics: metrics))
    }

    private static let refused = response(401)

    /// A request as the interceptor adapted it for sending.
    private func sent(through interceptor: Interceptor) async throws -> Request {
        try await interceptor.adapt(.get(Self.url), for: Self.context)
    }

    /// Asks `interceptor` about a `401` to `request` from `count` tasks at once.
    private func refuse(_ request: Request, count: Int, on interceptor: Interceptor) -> Task<[RetryDecision], Never> {
        Task {
            await withTaskGroup(of: RetryDecision.self) { group in
                for _ in 0..<count {
                    group.addTask { await interceptor.retry(request, after: Self.refused, context: Self.context) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
    }

    /// Waits until `count` requests wait for `interceptor`'s refresh (a condition, checked every millisecond).
    private func waitUntilWaiting(
        _ count: Int, on interceptor: Interceptor, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while await interceptor.waitingCount < count {
            let waiting = await interceptor.waitingCount
            try #require(
                ContinuousClock.now < deadline, "\(count) requests should wait for the refresh, \(waiting) do",
                sourceLocation: sourceLocation)
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// An authenticator whose refreshes wait at `gate`, then return `fresh-<refresh number>`.
    private func gatedAuthenticator(_ gate: Gate) -> TestAuthenticator {
        TestAuthenticator { _, number in
            await gate.wait()
            return TestToken(value: "fresh-\(number)")
        }
    }

    @Test func fiftyConcurrentRefusalsCauseOneRefreshAndFiftyRetries() async throws {
        let gate = Gate()
        let authenticator = gatedAuthenticator(gate)
        let interceptor = Interceptor(authenticator: authenticator, credential: TestToken(value: "old"))
        let request = try await sent(through: interceptor)
        #expect(request.credential == .bearer("old"))

        let decisions = refuse(request, count: 50, on: interceptor)
        try await waitUntilWaiting(50, on: interceptor)
        gate.open()

        let results = await decisions.value
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0.isRetry })
        #expect(authenticator.refreshes == 1)
        #expect(await interceptor.credential == TestToken(value: "fresh-1"))
        #expect(try await sent(through: interceptor).credential == .bearer("fresh-1"))
    }

    @Test func requestsAdaptedDuringARefreshWaitAndGetTheNewCredential() async throws {
        let gate = Gate()
        let authenticator = gatedAuthenticator(gate)
        let interceptor = Interceptor(authenticator: authenticator, credential: TestToken(value: "old"))
        let refusal = refuse(try await sent(through: interceptor), count: 1, on: interceptor)
        try await waitUntilWaiting(1, on: interceptor)

        let adapted = (0..<10).map { _ in Task { try await sent(through: interceptor) } }
        try await waitUntilWaiting(11, on: interceptor)
        gate.open()

        for request in adapted {
            #expect(try await request.value.credential == .bearer("fresh-1"))
        }
        #expect(await refusal.value.allSatisfy { $0.isRetry })
        #expect(authenticator.refreshes == 1)
    }

    @Test func aFailedRefreshFailsEveryWaitingRequestOnceWithTheSameError() async throws {
        struct Revoked: Error {}
        let gate = Gate()
        let authenticator = TestAuthenticator { _, _ in
            await gate.wait()
            throw Revoked()
        }
        let interceptor = Interceptor(authenticator: authenticator, credential: TestToken(value: "old"))
        let request = try await sent(through: interceptor)

        let decisions = refuse(request, count: 50, on: interceptor)
        try await waitUntilWaiting(50, on: interceptor)
        gate.open()

        let errors = await decisions.value.compactMap(\.failure)
        #expect(errors.count == 50)
        #expect(errors.allSatisfy { $0.code == .authenticationRefreshFailed && $0.underlying is Revoked })
        #expect(Set(errors.map(\.message)).count == 1)
        #expect(authenticator.refreshes == 1)

        // Final for that credential: a late refusal and a new request fail alike, with no refresh.
        #expect(await interceptor.retry(request, after: Self.refused, context: Self.context).failure?.code == .authenticationRefreshFailed)
        let adaptError = await #expect(throws: RequestError.self) { try await sent(through: interceptor) }
        #expect(adaptError?.code == .authenticationRefreshFailed)
        #expect(authenticator.refreshes == 1)

        // A new credential (the user signed in again) starts over.
        await interceptor.setCredential(TestToken(value: "signed-in"))
        #expect(try await sent(through: interceptor).credential == .bearer("signed-in"))
    }

    @Test func moreRefreshesThanTheWindowAllowsFailWithTooManyRefreshes() async throws {
        let clock = ManualClock()
        let authenticator = TestAuthenticator { _, number in TestToken(value: "fresh-\(number)") }
        let interceptor = Interceptor(
            authenticator: authenticator, credential: TestToken(value: "old"),
            refreshWindow: RefreshWindow(interval: .seconds(30), maximumRefreshes: 2), clock: { clock.now })

        /// Sends with the current credential, is refused, and returns the interceptor's decision.
        func refusedOnce() async throws -> RetryDecision {
            let request = try await sent(through: interceptor)
            return await interceptor.retry(request, after: Self.refused, context: Self.context)
        }

        #expect(try await refusedOnce().isRetry)
        clock.advance(by: .seconds(20))
        #expect(try await refusedOnce().isRetry)
        clock.advance(by: .seconds(10))
        // The first refresh is 30 s old: out of the window, which holds one.
        #expect(try await refusedOnce().isRetry)
        #expect(authenticator.refreshes == 3)

        let decision = try await refusedOnce()
        #expect(decision.failure?.code == .tooManyAuthenticationRefreshes)
        #expect(authenticator.refreshes == 3)
        let adaptError = await #expect(throws: RequestError.self) { try await sent(through: interceptor) }
        #expect(adaptError?.code == .tooManyAuthenticationRefreshes)
    }

    @Test func aRefusalOfAnOlderCredentialRetriesWithTheCurrentOneWithoutRefreshing() async throws {
        let authenticator = TestAuthenticator { _, number in TestToken(value: "fresh-\(number)") }
        let interceptor = Interceptor(authenticator: authenticator, credential: TestToken(value: "old"))
        let sentWithOld = try await sent(through: interceptor)
        await interceptor.setCredential(TestToken(value: "new"))

        #expect(await interceptor.retry(sentWithOld, after: Self.refused, context: Self.context).isRetry)
        #expect(authenticator.refreshes == 0)
        #expect(try await interceptor.adapt(sentWithOld, for: Self.context).credential == .bearer("new"))
    }

    @Test func anExpiredCredentialIsRefreshedOnceBeforeAnyRequestIsSent() async throws {
        let gate = Gate()
        let authenticator = gatedAuthenticator(gate)
        let interceptor = Interceptor(authenticator: authenticator, credential: TestToken(value: "old", expired: true))
        let adapted = (0..<20).map { _ in Task { try await sent(through: interceptor) } }
        try await waitUntilWaiting(20, on: interceptor)
        gate.open()

        for request in adapted {
            #expect(try await request.value.credential == .bearer("fresh-1"))
        }
        #expect(authenticator.refreshes == 1)
    }

    @Test func withoutACredentialNothingIsSent() async throws {
        let authenticator = TestAuthenticator { _, number in TestToken(value: "fresh-\(number)") }
        let interceptor = Interceptor(authenticator: authenticator)
        let error = await #expect(throws: RequestError.self) { try await sent(through: interceptor) }
        #expect(error?.code == .missingAuthenticationCredential)
        let decision = await interceptor.retry(.get(Self.url), after: Self.refused, context: Self.context)
        #expect(decision.failure?.code == .missingAuthenticationCredential)
        #expect(authenticator.refreshes == 0)
    }

    @Test func outcomesThatAreNotAuthenticationFailuresAreLeftToOthers() async throws {
        let authenticator = TestAuthenticator { _, number in TestToken(value: "fresh-\(number)") }
        let interceptor = Interceptor(authenticator: authenticator, credential: TestToken(value: "old"))
        let request = try await sent(through: interceptor)
        for outcome in [Self.response(403), Self.response(500), .failure(RequestError(.connectionLost, "reset"))] {
            #expect(await interceptor.retry(request, after: outcome, context: Self.context).isDoNotRetry)
        }
        #expect(authenticator.refreshes == 0)
    }

    @Test func cancellingOneWaitingRequestLeavesTheRefreshToTheOthers() async throws {
        let gate = Gate()
        let authenticator = gatedAuthenticator(gate)
        let interceptor = Interceptor(authenticator: authenticator, credential: TestToken(value: "old"))
        let refusal = refuse(try await sent(through: interceptor), count: 1, on: interceptor)
        try await waitUntilWaiting(1, on: interceptor)
        let cancelled = Task { try await sent(through: interceptor) }
        try await waitUntilWaiting(2, on: interceptor)

        cancelled.cancel()
        let error = await #expect(throws: RequestError.self) { try await cancelled.value }
        #expect(error?.code == .cancelled)
        #expect(await interceptor.waitingCount == 1)

        gate.open()
        #expect(await refusal.value.allSatisfy { $0.isRetry })
        #expect(authenticator.refreshes == 1)
        #expect(await interceptor.credential == TestToken(value: "fresh-1"))
    }

    @Test func aCredentialSetDuringARefreshReleasesTheWaitersAndWinsOverTheRefresh() async throws {
        let gate = Gate()
        let authenticator = gatedAuthenticator(gate)
        let interceptor = Interceptor(authenticator: authenticator, credential: TestToken(value: "old", expired: true))
        let adapted = Task { try await sent(through: interceptor) }
        try await waitUntilWaiting(1, on: interceptor)

        await interceptor.setCredential(TestToken(value: "signed-in"))
        #expect(try await adapted.value.credential == .bearer("signed-in"))
        gate.open()
        await interceptor.latestRefresh?.value
        #expect(authenticator.refreshes == 1)
        #expect(await interceptor.credential == TestToken(value: "signed-in"))
    }
}

extension RetryDecision {
    /// Whether this is ``RetryDecision/retry``.
    var isRetry: Bool {
        if case .retry = self { return true }
        return false
    }

    /// Whether this is ``RetryDecision/doNotRetry``.
    var isDoNotRetry: Bool {
        if case .doNotRetry = self { return true }
        return false
    }

    /// The error of ``RetryDecision/fail(_:)``, when it is a ``RequestError``.
    var failure: RequestError? {
        if case .fail(let error) = self { return error as? RequestError }
        return nil
    }
}

/// The interceptor run by the lifecycle, in all three styles, against `/token/resource`, whose
/// valid token only `/token/refresh` issues (see ``TokenRoutes``).
@Suite("AuthenticationInterceptor through the clients", .hangGuard)
struct AuthenticationInterceptorClientTests {
    /// How many requests find their token refused at once.
    private static let storm = 50

    /// A realm of the test's own, so tests running in parallel share no token state.
    private static func realm(_ test: String, _ style: ClientStyle) -> String {
        "\(test)-\(style)-\(UUID().uuidString.prefix(8))"
    }

    /// An authenticator that gets its fresh token from `/token/refresh?realm=<realm>` through
    /// `transport` (which must not run the interceptor), failing with `503` when `failing`.
    private static func refresher(realm: String, through transport: Transport, failing: Bool = false) -> TestAuthenticator {
        TestAuthenticator { _, _ in
            let refresh = Request.get("token/refresh").query("realm", realm).query("fail", failing ? "1" : "0")
            return TestToken(value: try await AsyncClient(transport: transport).send(refresh).validate().text())
        }
    }

    /// Sends `count` copies of `request` at once in `style` (the blocking ones each on a thread of its own).
    private static func sendTogether(
        _ request: Request, count: Int, style: ClientStyle, through transport: Transport
    ) async -> [Result<Response, RequestError>] {
        await withTaskGroup(of: Result<Response, RequestError>.self) { group in
            for _ in 0..<count {
                group.addTask { await style.send(request, through: transport) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("50 concurrent requests with an expired token: one refresh, 50 refused, 50 retried", arguments: ClientStyle.allCases)
    func concurrentRefusalsShareOneRefresh(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let realm = Self.realm("storm", style)
        let authenticator = Self.refresher(realm: realm, through: Fixture.transport(server, tls: true))
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TestToken(value: "expired"))
        let transport = Fixture.transport(server, tls: true) { $0.interceptors = [interceptor] }

        // Every refusal is held until all 50 have arrived: all are in flight with the old token at once.
        let request = Request.get("token/resource").query("realm", realm).query("hold", "\(Self.storm)")
        let responses = try await Self.sendTogether(request, count: Self.storm, style: style, through: transport).map { try $0.get() }

        #expect(responses.count == Self.storm)
        #expect(responses.allSatisfy { $0.status.code == 200 })
        #expect(responses.allSatisfy { $0.attempts.map(\.outcome) == [.response(status: 401), .response(status: 200)] })
        #expect(authenticator.refreshes == 1)
        #expect(server.tokenRefreshes(realm: realm) == 1)
        #expect(server.tokenRequests(realm: realm) == ["expired": Self.storm, "\(realm)-1": Self.storm])
    }

    @Test("a failing refresh fails every waiting request once with authenticationRefreshFailed", arguments: ClientStyle.allCases)
    func failedRefreshFailsEveryRequest(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let realm = Self.realm("refused", style)
        let transport = Fixture.transport(server, tls: true)
        // The refresh goes through the same transport: the interceptor is the requests' own, not the transport's.
        let authenticator = Self.refresher(realm: realm, through: transport, failing: true)
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TestToken(value: "expired"))

        let request = Request.get("token/resource").query("realm", realm).query("hold", "\(Self.storm)").intercepted(by: interceptor)
        let results = await Self.sendTogether(request, count: Self.storm, style: style, through: transport)

        let errors = results.compactMap(\.failure)
        #expect(errors.count == Self.storm)
        #expect(errors.allSatisfy { $0.code == .authenticationRefreshFailed })
        #expect(errors.allSatisfy { ($0.underlying as? RequestError)?.code == .unacceptableStatus })
        #expect(errors.allSatisfy { $0.response?.status.code == 401 && $0.attempts.count == 1 })
        #expect(authenticator.refreshes == 1)
        #expect(server.tokenRequests(realm: realm) == ["expired": Self.storm])

        // Later requests fail the same way before anything is sent, until a new credential is set.
        let later = try #require(await style.send(request, through: transport).failure)
        #expect(later.code == .authenticationRefreshFailed && later.attempts.isEmpty)
        #expect(server.tokenRequests(realm: realm) == ["expired": Self.storm])
    }

    @Test("a POST refused with 401 is sent again, once, after the refresh", arguments: ClientStyle.allCases)
    func refusedPostIsResentAfterRefresh(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let realm = Self.realm("post", style)
        let transport = Fixture.transport(server, tls: true)
        let authenticator = Self.refresher(realm: realm, through: transport)
        let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: TestToken(value: "expired"))

        let request = Request.post("token/resource").query("realm", realm).body("payload").intercepted(by: interceptor)
        let response = try await style.send(request, through: transport).get()

        #expect(response.status.code == 200)
        let echo = try response.echo()
        #expect(echo.method == "POST")
        #expect(String(decoding: echo.bodyData, as: UTF8.self) == "payload")
        #expect(echo.header("Authorization") == ["Bearer \(realm)-1"])
        #expect(response.attempts.map(\.outcome) == [.response(status: 401), .response(status: 200)])
        #expect(authenticator.refreshes == 1)
        #expect(server.tokenRequests(realm: realm) == ["expired": 1, "\(realm)-1": 1])
    }

    @Test("an expiring credential is refreshed before the request is sent", arguments: ClientStyle.allCases)
    func expiringCredentialIsRefreshedFirst(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let realm = Self.realm("expiring", style)
        let transport = Fixture.transport(server, tls: true)
        let authenticator = Self.refresher(realm: realm, through: transport)
        let interceptor = AuthenticationInterceptor(
            authenticator: authenticator, credential: TestToken(value: "expiring", expired: true))

        let request = Request.get("token/resource").query("realm", realm).intercepted(by: interceptor)
        let responses = try await Self.sendTogether(request, count: 10, style: style, through: transport).map { try $0.get() }

        #expect(responses.allSatisfy { $0.status.code == 200 && $0.attempts.count == 1 })
        #expect(authenticator.refreshes == 1)
        #expect(server.tokenRequests(realm: realm) == ["\(realm)-1": 10])
    }
}
