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

    @Test func fiftyConcurrentRefusalsCauseOneRefreshAndFiftyRetries() async throws {
        let gate = Gate()
        let authenticator = TestAuthenticator { _, number in
            await gate.wait()
            return TestToken(value: "fresh-\(number)")
        }
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
        let authenticator = TestAuthenticator { _, number in
            await gate.wait()
            return TestToken(value: "fresh-\(number)")
        }
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
        let authenticator = TestAuthenticator { _, number in
            await gate.wait()
            return TestToken(value: "fresh-\(number)")
        }
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
        let authenticator = TestAuthenticator { _, number in
            await gate.wait()
            return TestToken(value: "fresh-\(number)")
        }
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
        let authenticator = TestAuthenticator { _, number in
            await gate.wait()
            return TestToken(value: "fresh-\(number)")
        }
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
