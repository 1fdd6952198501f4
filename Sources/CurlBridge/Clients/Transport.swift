import Dispatch
import Logging
import Synchronization

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
    /// The loop and what every request's executor needs, or why curl could not give us a loop
    /// (then every request fails with that error).
    let core: Result<Core, RequestError>
    /// The transport's cookies (see ``CookieJar``); `nil` when the configuration's
    /// ``Configuration/cookies`` is ``CookieStorage/disabled``, or curl could not be initialised.
    /// A ``CookieStorage/persistent(file:)`` jar has loaded its file by the time the transport
    /// is made.
    public let cookies: CookieJar?
    /// The transport's queue as a task executor: a task that prefers it runs between the loop's
    /// turns and awaits responses without a thread hand-off (see ``TransportExecutor``).
    public let executor: TransportExecutor

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

    /// A transport's loop, with its registry of requests and its engine, and what each request's
    /// executor needs. A class: every request reads it, as one reference.
    final class Core: Sendable {
        let loop: CurlMultiLoop
        let environment: LifecycleEnvironment
        /// The engine's count of transfers in flight, read from any thread.
        let inFlight: TransferCounter
        /// The curl engine's count of transfers begun on a reused easy handle; `nil` when stubbed.
        let reusedHandles: TransferCounter?
        /// The loop's registry of requests, for work handed to the loop.
        var registry: LoopBound<RequestRegistry> { environment.registry }

        init(loop: CurlMultiLoop, environment: LifecycleEnvironment, inFlight: TransferCounter, reusedHandles: TransferCounter?) {
            self.loop = loop
            self.environment = environment
            self.inFlight = inFlight
            self.reusedHandles = reusedHandles
        }
    }

    private init(configuration: Configuration, stubHandler: StubEngine.Handler?) {
        self.configuration = configuration
        do throws(RequestError) {
            let share = configuration.cookies.usesCookieEngine ? try CurlCookieShare() : nil
            let loop = try CurlMultiLoop(label: "CurlBridge.Transport", limits: configuration.connectionLimits)
            let defaults = RequestDefaults(configuration)
            let network: any TransferEngine = if let stubHandler {
                StubEngine(loop: loop, handler: stubHandler)
            } else {
                CurlEngine(loop: loop, options: CurlEasyOptions(configuration, cookieShare: share, defaultHeaderLines: defaults.lines))
            }
            let jar = share.map { CookieJar(share: $0, storage: configuration.cookies, logger: configuration.logger) }
            let engine = configuration.cache.map { cache in
                CachingEngine(cache: cache, inner: network, loop: loop, partitioner: CachePartitioner(
                    keyedHash: cache.store.keyedHash, trust: CacheTrust(configuration), cookies: jar))
            } ?? network
            let (inFlight, reusedHandles) = (engine.inFlight, (network as? CurlEngine)?.reusedHandles)
            let registry = RequestRegistry(engine: engine)
            loop.delegate = registry
            let environment = LifecycleEnvironment(
                registry: LoopBound(owning: registry, on: loop), defaults: defaults, configuration: configuration)
            core = .success(Core(loop: loop, environment: environment, inFlight: inFlight, reusedHandles: reusedHandles))
            cookies = jar
            executor = TransportExecutor(loop: loop)
        } catch {
            configuration.logger.error("libcurl could not be initialised: \(error)")
            core = .failure(error)
            cookies = nil
            executor = TransportExecutor(loop: nil)
        }
        cookies?.loadConfiguredFile()
    }

    deinit {
        if case .success(let core) = core { core.loop.shutdown { [cookies] in cookies?.saveConfiguredFile() } }
    }

    /// Starts `request`; `events` report its progress and, exactly once, its outcome.
    ///
    /// A request that cannot be sent (a building problem, an invalid URL, a shut-down transport)
    /// completes before this returns, on the calling thread, and gets no handle — unless it has
    /// adapters, which run first, in a task.
    ///
    /// - Returns: A handle to cancel, pause or resume the transfer, or `nil` if it already completed.
    @discardableResult
    func start(_ request: Request, events: consuming TransferEvents) -> TransferHandle? {
        start(request, events: events) { loop, work, enqueued in
            guard loop.submit(isNewRequest: true, work) else { return nil }
            return enqueued()
        }
    }

    /// Like ``start(_:events:)``, but when the transport is idle the calling thread drives curl
    /// itself until `isFinished()` (normally: until this request completed). For blocking callers,
    /// which would otherwise sleep while the transport's queue does the same work.
    ///
    /// - Parameter onStart: Receives the request's handle once it is queued and before this thread
    ///   starts driving, so another thread can cancel it meanwhile; not called when the request
    ///   completes at once.
    @discardableResult
    func startDriving(
        _ request: Request, events: consuming TransferEvents, onStart: (TransferHandle) -> Void = { _ in }, until isFinished: () -> Bool
    ) -> TransferHandle? {
        start(request, events: events) { loop, work, enqueued in
            var handle: TransferHandle?
            guard loop.submitAndDrive(work, enqueued: { handle = enqueued(); onStart(handle!) }, until: isFinished) else { return nil }
            return handle
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
    func startSending(_ request: Request, events: consuming TransferEvents, onStart: (TransferHandle) -> Void) -> TransferHandle? {
        startDriving(request, events: events, onStart: onStart, until: { true })
    }

    /// Starts `request`'s executor on this thread — preparing its first hop, or naming its
    /// adapters — then hands it to the loop through `submit`, which registers it before anything
    /// addressed to it (a cancel from its handle, its adapters' answer) can arrive.
    ///
    /// `submit` hands the work to the loop and, once it is queued, calls its third argument —
    /// which launches what the request runs on this thread (its first adapters) and returns the
    /// handle — then returns that handle; `nil` when the loop refused the work.
    private func start(
        _ request: Request, events: consuming TransferEvents,
        submit: (CurlMultiLoop, @escaping CurlMultiLoop.Work, () -> TransferHandle) -> TransferHandle?
    ) -> TransferHandle? {
        let core: Core
        switch self.core {
        case .success(let ready): core = ready
        case .failure(let error):
            events.onComplete(.failure(error.attributed(to: request.method, url: request.url)))
            return nil
        }
        let executor = RequestExecutor(request: request, id: Self.makeRequestID(), events: events, environment: core.environment)
        guard let launch = executor.start() else { return nil }
        let (id, registry) = (executor.id, core.registry)
        // Handed to the loop: from here on this thread touches the executor only if the loop
        // refuses the work. The work captures it alone — one reference, so the closure needs no
        // context of its own — and the executor keeps its first hop and leads to its registry.
        nonisolated(unsafe) let handedOver = executor
        let handle = submit(core.loop, {
            if let registry = handedOver.environment.registry.open() { registry.run(handedOver) }
        }) {
            launch.run()
            return TransferHandle(id: id, registry: registry)
        }
        // Refused: the loop never ran the work, so the executor is still this thread's.
        if handle == nil { executor.refuse(Self.shutDownError(request)) }
        return handle
    }

    /// Ends `request` as cancelled at once — its caller's task was cancelled before it started —
    /// through an executor of its own, so monitors and the log see it start and complete like any
    /// other request; nothing is sent.
    func startCancelled(_ request: Request, events: TransferEvents) {
        let error = RequestError.cancelledBeforeStart(request)
        guard case .success(let core) = core else { return events.onComplete(.failure(error)) }
        RequestExecutor(request: request, id: Self.makeRequestID(), events: events, environment: core.environment)
            .startCancelled(error.message)
    }

    /// Source of request numbers, shared by every transport in the process, so that a request id
    /// (what monitors, interceptors and log lines see) is unique across transports.
    private static let nextRequestID = Atomic<UInt64>(1)

    /// A new request number.
    private static func makeRequestID() -> UInt64 {
        nextRequestID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Why `request` could not be handed to the loop: it no longer accepts requests. Made only
    /// then, not for every request.
    private static func shutDownError(_ request: Request) -> RequestError {
        RequestError(.transportShutDown, "the transport has been shut down", method: request.method, url: request.url)
    }

    /// How many requests are in flight (started in curl and not yet completed).
    var inFlightCount: Int {
        if case .success(let core) = core { return core.inFlight.value }
        return 0
    }

    /// Cancels every request in flight; each completes with ``RequestError/Code/cancelled``.
    /// The transport stays usable.
    public func cancelAll() {
        if case .success(let core) = core { core.registry.submit { $0.cancelAll() } }
    }

    /// Shuts down gracefully: new requests fail with ``RequestError/Code/transportShutDown`` at
    /// once, requests in flight finish (those waiting between attempts fail with it too), then curl's resources are released, a
    /// ``CookieStorage/persistent(file:)`` jar is saved to its file, and `completion` runs
    /// (on the transport's queue; at once if already shut down).
    public func shutdown(completion: @escaping @Sendable () -> Void) {
        switch core {
        case .success(let core):
            core.loop.shutdown { [cookies] in
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
}
