@testable import CurlBridge
import Synchronization

/// A bearer token for ``TestAuthenticator``; `expired` makes it require a refresh before use.
struct TestToken: RefreshableCredential, Hashable {
    var value: String
    var expired = false

    var requiresRefresh: Bool { expired }
}

/// An authenticator that sends its token as `Authorization: Bearer`, counts its refreshes and
/// refreshes with `body` (given the token and the refresh's number, from 1).
struct TestAuthenticator: Authenticator {
    private let count = Counter()
    private let body: @Sendable (_ token: TestToken, _ refresh: Int) async throws -> TestToken

    init(refresh body: @escaping @Sendable (_ token: TestToken, _ refresh: Int) async throws -> TestToken) {
        self.body = body
    }

    /// How many times ``refresh(_:)`` was called.
    var refreshes: Int { count.value }

    func apply(_ token: TestToken, to request: Request) -> Request {
        request.bearerToken(token.value)
    }

    func refresh(_ token: TestToken) async throws -> TestToken {
        try await body(token, count.increment())
    }

    func isRequest(_ request: Request, authenticatedWith token: TestToken) -> Bool {
        request.credential == .bearer(token.value)
    }
}

/// A number that many threads increment.
final class Counter: Sendable {
    private let count = Mutex(0)

    /// The current count.
    var value: Int { count.withLock { $0 } }

    /// Adds one and returns the new count.
    func increment() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}

/// A gate tasks wait at until the test opens it (for good).
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// Returns once the gate is open.
    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    /// Opens the gate, letting every waiting and later task through.
    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// A clock a test moves by hand.
final class ManualClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    /// The current reading.
    var now: ContinuousClock.Instant { instant.withLock { $0 } }

    /// Moves the clock on by `duration`.
    func advance(by duration: Duration) {
        instant.withLock { $0 += duration }
    }
}
