/// Authenticates requests with a credential that expires, and refreshes it **once** however many
/// requests find it refused at the same time. Alamofire's `AuthenticationInterceptor`.
///
/// ```swift
/// let auth = AuthenticationInterceptor(authenticator: OAuth(tokens: service), credential: storedToken)
/// let transport = Transport(configuration: .init(baseURL: api, interceptors: [auth]))
/// ```
///
/// How it works, for each request (the ``Authenticator`` supplies the specifics):
///
/// ```
/// adapt:   refresh in flight?           → wait for it, then apply the fresh credential
///          no credential?               → fail: missingAuthenticationCredential (nothing sent)
///          refreshing it failed before? → fail with that error (nothing sent)
///          credential.requiresRefresh?  → start a refresh, wait, apply the fresh credential
///          otherwise                    → apply the credential
/// retry:   not an authentication failure       → no opinion
///          sent with an older credential       → retry (adapt applies the current one)
///          sent with the current credential    → join the refresh in flight, or start one;
///                                                retry once it succeeds, fail when it fails
/// ```
///
/// One refresh at a time: the first request to need one starts ``Authenticator/refresh(_:)`` in a
/// task of its own, and every request that needs one while it runs — adapting or retrying — waits
/// for that same refresh and gets its result: all of them retry with the fresh credential, or all
/// of them fail with the same ``RequestError/Code/authenticationRefreshFailed``, each once. A
/// request cancelled while waiting stops waiting at once, with ``RequestError/Code/cancelled``;
/// the refresh goes on for the others.
///
/// A failed refresh is final for the credential it tried to refresh: requests refused with that
/// credential, and every request adapted after, fail with the same error without another
/// refresh, until ``setCredential(_:)`` gives a new one (after the user signs in again). A
/// ``RefreshWindow`` stops a refresh loop against a server that refuses every fresh credential.
///
/// Retries decided here are not subject to the retry policy's idempotency rule or the
/// ``RetryBudget`` (a refused request was not processed, so a `POST` is re-sent too), but a
/// request is still never sent more than 10 times, nor sent again with a body that cannot be
/// re-sent.
public actor AuthenticationInterceptor<A: Authenticator>: RequestInterceptor {
    /// The authenticator that applies and refreshes the credential.
    public nonisolated let authenticator: A
    /// The refresh limit; `nil` allows any number of refreshes.
    public nonisolated let refreshWindow: RefreshWindow?

    /// The credential requests are authenticated with, `nil` until one is given.
    public private(set) var credential: A.Token?
    /// Counts the changes of ``credential``: a refresh result or a failure belongs to one generation.
    private var generation = 0
    /// The requests waiting for the refresh in flight, if one is; keyed by waiter number.
    private var waiters: [UInt64: CheckedContinuation<Result<A.Token, RequestError>, Never>]?
    private var nextWaiter: UInt64 = 0
    /// The error of the failed refresh of generation `generation`, if the last refresh failed.
    private var failure: (generation: Int, error: RequestError)?
    /// When the refreshes still inside the ``refreshWindow`` started, oldest first.
    private var refreshStarts: [ContinuousClock.Instant] = []
    /// The clock the window is measured with (a manual one in tests).
    private let now: @Sendable () -> ContinuousClock.Instant

    /// Creates an interceptor.
    ///
    /// - Parameters:
    ///   - authenticator: Applies and refreshes the credential.
    ///   - credential: The credential to start with; `nil` by default, in which case requests
    ///     fail with ``RequestError/Code/missingAuthenticationCredential`` until
    ///     ``setCredential(_:)`` gives one.
    ///   - refreshWindow: The refresh limit; 5 per 30 seconds by default. `nil` allows any
    ///     number, and risks a refresh loop.
    public init(authenticator: A, credential: A.Token? = nil, refreshWindow: RefreshWindow? = RefreshWindow()) {
        self.init(authenticator: authenticator, credential: credential, refreshWindow: refreshWindow, clock: { .now })
    }

    /// Creates an interceptor that measures its refresh window with `clock`.
    init(
        authenticator: A, credential: A.Token?, refreshWindow: RefreshWindow?,
        clock: @escaping @Sendable () -> ContinuousClock.Instant
    ) {
        self.authenticator = authenticator
        self.credential = credential
        self.refreshWindow = refreshWindow
        self.now = clock
    }

    /// How many requests are waiting for the refresh in flight (0 when none is), for tests.
    var waitingCount: Int { waiters?.count ?? 0 }
    /// The task of the last refresh started, for tests to wait for.
    private(set) var latestRefresh: Task<Void, Never>?

    /// Replaces the credential — after the user signs in, or signs out (`nil`) — and forgets a
    /// failed refresh. Requests waiting for a refresh in flight go on at once with `credential`
    /// (or fail with ``RequestError/Code/missingAuthenticationCredential``); that refresh's
    /// result is ignored.
    public func setCredential(_ credential: A.Token?) {
        install(credential)
        let result = credential.map { Result<A.Token, RequestError>.success($0) } ?? .failure(Self.missingCredential())
        resumeWaiters(with: result)
    }

    /// Returns `request` with the current credential applied, after waiting for a refresh in
    /// flight or one the credential requires (see the type's overview).
    ///
    /// - Throws: ``RequestError/Code/missingAuthenticationCredential`` without a credential; the
    ///   ``RequestError/Code/authenticationRefreshFailed`` or
    ///   ``RequestError/Code/tooManyAuthenticationRefreshes`` of a failed refresh;
    ///   ``RequestError/Code/cancelled`` when the task is cancelled while waiting.
    public func adapt(_ request: Request, for context: AttemptContext) async throws -> Request {
        authenticator.apply(try await credentialToSend().get(), to: request)
    }

    /// Decides after an attempt (see the type's overview): ``RetryDecision/retry`` after a
    /// refused credential once a fresh one is in place, ``RetryDecision/fail(_:)`` with the
    /// refresh's error when there can be none, ``RetryDecision/doNotRetry`` for anything that
    /// is not an authentication failure.
    public func retry(_ request: Request, after outcome: AttemptOutcome, context: AttemptContext) async -> RetryDecision {
        guard authenticator.isAuthenticationFailure(outcome, of: request) else { return .doNotRetry }
        guard let credential else { return .fail(Self.missingCredential()) }
        guard authenticator.isRequest(request, authenticatedWith: credential) else { return .retry }
        switch await refreshed(credential) {
        case .success: return .retry
        case .failure(let error): return .fail(error)
        }
    }

    /// The credential to apply: the current one, or the result of the refresh it needs.
    private func credentialToSend() async -> Result<A.Token, RequestError> {
        if waiters != nil { return await waitForRefresh() }
        guard let credential else { return .failure(Self.missingCredential()) }
        if let failure, failure.generation == generation { return .failure(failure.error) }
        return credential.requiresRefresh ? await refreshed(credential) : .success(credential)
    }

    /// The result of refreshing `credential`, the current one: the refresh in flight, the
    /// failure of the last one, or a refresh started now.
    private func refreshed(_ credential: A.Token) async -> Result<A.Token, RequestError> {
        if waiters == nil {
            if let failure, failure.generation == generation { return .failure(failure.error) }
            if let refusal = startRefresh(of: credential) { return .failure(refusal) }
        }
        return await waitForRefresh()
    }

    /// Starts refreshing `credential` in a task of its own, or returns (and records) the error
    /// of a refresh the window does not allow.
    private func startRefresh(of credential: A.Token) -> RequestError? {
        if let refreshWindow {
            let start = now()
            refreshStarts.removeAll { start - $0 >= refreshWindow.interval }
            guard refreshStarts.count < refreshWindow.maximumRefreshes else {
                let error = RequestError(
                    .tooManyAuthenticationRefreshes,
                    "the credential was refreshed \(refreshStarts.count) times within \(refreshWindow.interval); not refreshing again")
                failure = (generation, error)
                return error
            }
            refreshStarts.append(start)
        }
        waiters = [:]
        let refreshing = generation
        latestRefresh = Task { [self] in
            let result: Result<A.Token, RequestError>
            do {
                result = .success(try await authenticator.refresh(credential))
            } catch {
                result = .failure(RequestError(
                    .authenticationRefreshFailed, "refreshing the credential failed: \(error)", underlying: error))
            }
            finishRefresh(of: refreshing, with: result)
        }
        return nil
    }

    /// Installs the refresh's result and wakes every request waiting for it, unless
    /// ``setCredential(_:)`` replaced the credential meanwhile.
    private func finishRefresh(of refreshed: Int, with result: Result<A.Token, RequestError>) {
        guard refreshed == generation else { return }
        switch result {
        case .success(let fresh):
            install(fresh)
        case .failure(let error):
            failure = (generation, error)
        }
        resumeWaiters(with: result)
    }

    /// Waits for the refresh in flight (there must be one); a cancelled task stops waiting at once.
    private func waitForRefresh() async -> Result<A.Token, RequestError> {
        let waiter = nextWaiter
        nextWaiter += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: .failure(Self.cancelledWhileWaiting()))
                } else {
                    waiters?[waiter] = continuation
                }
            }
        } onCancel: {
            Task { await self.stopWaiting(waiter) }
        }
    }

    /// Lets waiter number `waiter`, whose task was cancelled, go on with ``RequestError/Code/cancelled``.
    private func stopWaiting(_ waiter: UInt64) {
        waiters?.removeValue(forKey: waiter)?.resume(returning: .failure(Self.cancelledWhileWaiting()))
    }

    /// Resumes and forgets every waiter, if a refresh was in flight.
    private func resumeWaiters(with result: Result<A.Token, RequestError>) {
        let waiting = waiters ?? [:]
        waiters = nil
        for continuation in waiting.values { continuation.resume(returning: result) }
    }

    /// Makes `credential` the current one, of a new generation without a failure.
    private func install(_ credential: A.Token?) {
        self.credential = credential
        generation += 1
        failure = nil
    }

    private static func missingCredential() -> RequestError {
        RequestError(.missingAuthenticationCredential, "the authentication interceptor has no credential to send")
    }

    private static func cancelledWhileWaiting() -> RequestError {
        RequestError(.cancelled, "the task was cancelled while waiting for a credential refresh")
    }
}
