import Dispatch
import Logging

/// The engine under every client: one libcurl multi handle, its connection pool, and the serial
/// queue that drives it.
///
/// Clients built on the same transport share its connections (keep-alive, HTTP/2 multiplexing)
/// and its configuration. A transport is cheap to keep and should be long-lived; make one per
/// set of settings, not one per request.
///
/// ```swift
/// let transport = Transport(configuration: .init(baseURL: URL(string: "https://api.example.com/v1/")))
/// let client = AsyncClient(transport: transport)
/// ```
///
/// Releasing the last reference shuts the transport down gracefully: requests in flight finish
/// and report their outcome; a request waiting to be retried fails with
/// ``RequestError/Code/transportShutDown`` rather than holding the shutdown for its wait.
public final class Transport: Sendable {
    /// The settings every request through this transport uses.
    public let configuration: Configuration
    /// The loop, or why curl could not give us one (then every request fails with that error).
    let loop: Result<CurlMultiLoop, RequestError>
    /// What every request starts from, computed once from the configuration.
    private let requestDefaults: RequestDefaults
    /// What every request's lifecycle needs, when curl could give us a loop.
    private let lifecycleEnvironment: LifecycleEnvironment?
    /// The transport's cookies (see ``CookieJar``); `nil` when the configuration's
    /// ``Configuration/cookies`` is ``CookieStorage/disabled``, or curl could not be initialised.
    /// A ``CookieStorage/persistent(file:)`` jar has loaded its file by the time the transport
    /// is made.
    public let cookies: CookieJar?

    /// Creates a transport.
    ///
    /// - Parameter configuration: Base URL, timeouts, TLS, limits; defaults as documented on
    ///   ``Configuration``.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, stubHandler: nil)
    }

    /// Creates a transport whose requests are answered by `stub` instead of the network: for
    /// testing code that makes requests, with no server and no socket. Everything above the wire
    /// runs as usual — the request builder, the three clients and the blocking guard, base URLs,
    /// default headers, redirects, retries, interceptors, validation, streaming, downloads,
    /// progress, timeouts, cancellation — so a test sees the behaviour its code will see.
    ///
    /// ```swift
    /// let transport = Transport(configuration: .init(baseURL: URL(string: "https://api.example.com/")),
    ///                           stub: { request in
    ///     request.path == "/users/42" ? try! .json(User(id: 42)) : .text("not found", status: .notFound)
    /// })
    /// let user = try await AsyncClient(transport: transport).send(.get("users/42")).decode(User.self)
    /// ```
    ///
    /// The stub runs in a task of its own, once per attempt (a redirect or a retry asks it again),
    /// possibly for several requests at once. libcurl's own work is not stubbed: its cookie engine
    /// does not see a stub's `Set-Cookie`, nor its TLS, proxy or authentication options a request.
    /// The `CurlBridgeTesting` product adds a table of canned responses and a request recorder.
    ///
    /// - Parameters:
    ///   - configuration: As for ``init(configuration:)``.
    ///   - stub: Answers each request (see ``StubRequest`` and ``StubResponse``).
    public convenience init(
        configuration: Configuration = Configuration(), stub: @escaping @Sendable (StubRequest) async -> StubResponse
    ) {
        self.init(configuration: configuration, stubHandler: stub)
    }

    private init(configuration: Configuration, stubHandler: StubExchanges.Handler?) {
        self.configuration = configuration
        let defaults = RequestDefaults(configuration)
        self.requestDefaults = defaults
        do throws(RequestError) {
            let share = configuration.cookies.usesCookieEngine ? try CurlCookieShare() : nil
            let loop = try CurlMultiLoop(
                label: "CurlBridge.Transport", configuration: configuration, cookieShare: share, stub: stubHandler)
            self.loop = .success(loop)
            lifecycleEnvironment = LifecycleEnvironment(loop: loop, defaults: defaults, configuration: configuration)
            cookies = share.map { CookieJar(share: $0, storage: configuration.cookies, logger: configuration.logger) }
        } catch {
            configuration.logger.error("libcurl could not be initialised: \(error)")
            loop = .failure(error)
            lifecycleEnvironment = nil
            cookies = nil
        }
        cookies?.loadConfiguredFile()
    }

    deinit {
        if case .success(let loop) = loop { loop.shutdown { [cookies] in cookies?.saveConfiguredFile() } }
    }

    /// Starts `request`; `events` report its progress and, exactly once, its outcome.
    ///
    /// A request that cannot be sent (a building problem, an invalid URL, a shut-down transport)
    /// completes before this returns, on the calling thread, and gets no handle — unless it has
    /// adapters, which run first, in a task.
    ///
    /// - Returns: A handle to cancel, pause or resume the transfer, or `nil` if it already completed.
    @discardableResult
    func start(_ request: Request, events: TransferEvents) -> TransferHandle? {
        start(request, events: events, onStart: { _ in }) { loop, command, _ in loop.submit(command) }
    }

    /// Like ``start(_:events:)``, but when the transport is idle the calling thread drives curl
    /// itself until `isFinished()` (normally: until this transfer completed). For blocking callers,
    /// which would otherwise sleep while the transport's queue does the same work.
    ///
    /// - Parameter onStart: Receives the transfer's handle once it is queued and before this thread
    ///   starts driving, so another thread can cancel it meanwhile; not called when the request
    ///   completes at once.
    @discardableResult
    func startDriving(
        _ request: Request, events: TransferEvents, onStart: (TransferHandle) -> Void = { _ in }, until isFinished: () -> Bool
    ) -> TransferHandle? {
        start(request, events: events, onStart: onStart) { loop, command, handle in
            loop.submitAndDrive(command, enqueued: { onStart(handle) }, until: isFinished)
        }
    }

    /// Like ``start(_:events:)``, but when the transport is idle the calling thread runs the loop's
    /// first turn itself — the transfer joins curl, which connects and sends as far as it can
    /// without waiting — then hands the loop to the transport's queue, which takes over the
    /// waiting. The request is then on its way while the queue's thread wakes up, rather than
    /// after. Never blocks: an idle loop has nothing to wait for, and its first turn does not poll.
    ///
    /// - Parameter onStart: As for ``startDriving(_:events:onStart:until:)``.
    @discardableResult
    func startSending(_ request: Request, events: TransferEvents, onStart: (TransferHandle) -> Void) -> TransferHandle? {
        startDriving(request, events: events, onStart: onStart, until: { true })
    }

    /// Prepares `request` and hands it to the loop through `submit` — inside a
    /// ``RequestLifecycle`` when it needs one — or completes it at once.
    private func start(
        _ request: Request, events: TransferEvents, onStart: (TransferHandle) -> Void,
        submit: (CurlMultiLoop, CurlMultiLoop.Command, TransferHandle) -> Bool
    ) -> TransferHandle? {
        guard case .success(let loop) = self.loop, let environment = lifecycleEnvironment else {
            if case .failure(let error) = self.loop { events.onComplete(.failure(error.attributed(to: request.method, url: request.url))) }
            return nil
        }
        let id = loop.makeTransferID()
        let handle = TransferHandle(id: id, loop: loop)
        let needsLifecycle = environment.needsLifecycle(request)
        guard needsLifecycle, !environment.defersLifecycle(request, events: events) else {
            let prepared: PreparedRequest
            switch request.prepared(with: requestDefaults) {
            case .success(let ready): prepared = ready
            case .failure(let problem):
                events.onComplete(.failure(problem))
                return nil
            }
            let attemptEvents = needsLifecycle ? environment.deferringEvents(for: request, prepared: prepared, id: id, events: events) : events
            guard submit(loop, .start(id: id, request: prepared, events: attemptEvents), handle) else {
                events.onComplete(.failure(Self.shutDownError(request)))
                return nil
            }
            return handle
        }
        let lifecycle = RequestLifecycle(request: request, id: id, environment: environment, events: events)
        switch lifecycle.begin() {
        case .completed:
            return nil
        case .start(let prepared, let attemptEvents):
            guard submit(loop, .start(id: id, request: prepared, events: attemptEvents), handle) else {
                lifecycle.finish(.failure(Self.shutDownError(request)))
                return nil
            }
        case .adapt(let waiting):
            guard loop.submit(.suspend(id: id, waiting)) else {
                lifecycle.finish(.failure(Self.shutDownError(request)))
                return nil
            }
            onStart(handle)
            lifecycle.adaptFirstAttempt()
        }
        return handle
    }

    /// Why `request` could not be handed to the loop: it no longer accepts requests. Made only
    /// then, not for every request.
    private static func shutDownError(_ request: Request) -> RequestError {
        RequestError(.transportShutDown, "the transport has been shut down", method: request.method, url: request.url)
    }

    /// How many requests are in flight (started in curl and not yet completed).
    var inFlightCount: Int {
        if case .success(let loop) = loop { return loop.inFlightCount }
        return 0
    }

    /// Cancels every request in flight; each completes with ``RequestError/Code/cancelled``.
    /// The transport stays usable.
    public func cancelAll() {
        if case .success(let loop) = loop { loop.submit(.cancelAll) }
    }

    /// Shuts down gracefully: new requests fail with ``RequestError/Code/transportShutDown`` at
    /// once, requests in flight finish (those waiting between attempts fail with it too), then curl's resources are released, a
    /// ``CookieStorage/persistent(file:)`` jar is saved to its file, and `completion` runs
    /// (on the transport's queue; at once if already shut down).
    public func shutdown(completion: @escaping @Sendable () -> Void) {
        switch loop {
        case .success(let loop):
            loop.shutdown { [cookies] in
                cookies?.saveConfiguredFile()
                completion()
            }
        case .failure: completion()
        }
    }

    /// Shuts down gracefully and returns when every request in flight has finished and curl's
    /// resources are released. Combine with ``cancelAll()`` for an immediate stop.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            shutdown { continuation.resume() }
        }
    }

    /// Whether the caller is running on a transport's queue, where waiting for a transfer would
    /// deadlock.
    static var isOnTransportQueue: Bool {
        DispatchQueue.getSpecific(key: CurlMultiLoop.queueKey) == true
    }
}
