#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// Every decision about one request, from its start to its one completion, as a value: each event
/// is a mutating method that returns what to do. No I/O, no lock, no clock — the time comes with
/// the events, the wall clock and random draws from the ``Readings`` given at init — so every (state, event) pair is unit-tested without a socket
/// (`RequestStateMachineTableTests`, `RequestStateMachineTests`, `RequestStateMachinePlainTests`). ``RequestExecutor`` feeds it the events and performs its actions,
/// on the transport's loop; AsyncHTTPClient's `RequestBag.StateMachine` is the model.
///
/// ```
///            start                       adapted
///  initial ─────────▶ adapting ──────────────────────▶ running(hop)
///     │  (no adapters)                                  │   head: follow, hold or deliver
///     └──────────────────────────────────────────────▶ │   transfer ended:
///                                                       ├─ redirect ─▶ running(next hop)
///                                                       ├─ retriers ─▶ decidingRetry ─┐
///                                                       ├─ policy ──▶ awaitingBudget ─┼─▶ waitingToRetry
///                                                       │                             │      │ backoff timer
///                                                       └─ deliver ─▶ finished ◀──────┘      ▼
///                                                                              adapting / running (attempt + 1)
///  a plain request (no adapters, observers, consumer or total timeout; ``isPlain``):
///  initial ──startPlainly──▶ plain ──ordinary end (endPlainly)──▶ finished
///                              └── any other event makes its hop first: running(hop), as above
///  cancel: from every state to finished (a running transfer is stopped)
///  shutdown: from every state but plain and running to finished; a running attempt ends, and no other starts
///  total timeout: curl's own in a transfer; the deadline timer while adapting, deciding or waiting
/// ```
///
/// Cancel and shutdown are sticky: a cancel ends the request in whatever state it finds it — a
/// wait, an adapter or retrier still running, a transfer — and every later event (a late transfer
/// end, a timer, an interceptor's answer, a second cancel) finds `finished` and does nothing.
/// Exactly one completion is ever returned: an ``Action/complete(_:release:duration:)``, or a
/// plain request's ``PlainEnd/complete(duration:)``.
struct RequestStateMachine {
    /// What the request's configuration fixes for its whole life.
    struct Setup {
        /// The request's number in its transport (what interceptors and monitors see).
        var id: UInt64
        /// The request as the caller made it; every attempt starts from it.
        var original: Request
        /// Its redirect and retry policies, default headers and readings: its transport's, shared
        /// by every request that brings no policy of its own.
        var policies: Policies
        /// Whether adapters run before each attempt.
        var hasAdapters: Bool
        /// Whether retriers are asked after an attempt that did not succeed.
        var hasRetriers: Bool
        /// What the caller's events take besides the outcome.
        var consumer: Consumer
        /// Whether monitors or a debug log watch the request (notifications are made only then).
        var isObserved: Bool
        /// When the request started (`MonotonicClock` nanoseconds).
        var startedAt: UInt64
        /// When the total timeout runs out for all attempts, if it has one.
        var deadline: UInt64?

        var redirects: RedirectPolicy { policies.redirects }
        var retries: RetryPolicy { policies.retries }
        /// The configuration's default headers, filtered on redirects to another origin.
        var defaultHeaders: HTTPFields { policies.defaultHeaders }
        /// The wall clock and random draws a retry policy's decision reads.
        var readings: Readings { policies.readings }
    }

    /// The policies a request follows: made once per transport and shared by its requests (one
    /// reference in each request's setup, rather than their fields: a retain and a release each
    /// per request), and once more for a request that brings a policy of its own.
    final class Policies: Sendable {
        let redirects: RedirectPolicy
        let retries: RetryPolicy
        /// The configuration's default headers, filtered on redirects to another origin.
        let defaultHeaders: HTTPFields
        /// The wall clock and random draws a retry policy's decision reads.
        let readings: Readings

        init(redirects: RedirectPolicy, retries: RetryPolicy, defaultHeaders: HTTPFields, readings: Readings = .system) {
            self.redirects = redirects
            self.retries = retries
            self.defaultHeaders = defaultHeaders
            self.readings = readings
        }
    }

    /// What the caller's events consume before the outcome.
    struct Consumer: Equatable {
        /// A head consumer (streams, downloads).
        var takesHead = false
        /// A body consumer: the body is not collected in memory.
        var takesBody = false
        /// A progress consumer.
        var takesProgress = false

        /// Whether redirects and retries are decided when a head arrives — before the body, so a
        /// redirect's or a retried failure's head, body or progress never reaches the consumer —
        /// rather than from the complete response.
        var decidesAtHead: Bool { takesHead || takesBody || takesProgress }
    }

    /// Where the request is.
    enum State {
        /// Made, not started.
        case initial
        /// The adapters of the running attempt are working out its request.
        case adapting
        /// The first attempt of a plain request (``isPlain``) is in a transfer, its request the
        /// caller's own: no hop is made for it until an event needs one (``RequestStateMachine/enterRunningHop()``).
        case plain
        /// The running attempt's hop is in a transfer.
        case running(Hop)
        /// The retriers are deciding about the attempt that ended.
        indirect case decidingRetry(AttemptEnd)
        /// The policy would retry after `delay`; the transport's retry budget is being asked.
        indirect case awaitingBudget(AttemptEnd, delay: Duration)
        /// Backing off before the next attempt.
        case waitingToRetry
        /// The outcome was reported.
        case finished
    }

    /// One request of an attempt's redirect chain, in a transfer. A value, like the machine, whose
    /// fields live in one ``CopyOnWrite`` box: the state is copied at every event, and a copy then
    /// costs one retain, not a hop with a held response inside. An event that changes the running
    /// hop does it through `changeRunningHop(_:)`, which finds the box unshared.
    struct Hop {
        /// What a hop holds.
        private struct Fields {
            let request: Request
            var target: Target?
            var phase = Phase.open
            var resentOnClosingSession = false
        }

        private var fields: CopyOnWrite<Fields>

        init(request: Request, target: Target? = nil) {
            fields = CopyOnWrite(Fields(request: request, target: target))
        }

        /// The request this hop sends.
        var request: Request { fields.value.request }

        /// Its method and absolute URL, once prepared (what errors and loop detection name).
        var target: Target? {
            _read { yield fields.value.target }
            _modify { yield &fields.value.target }
        }

        /// What the hop does with its response.
        var phase: Phase {
            _read { yield fields.value.phase }
            _modify { yield &fields.value.phase }
        }

        /// Whether the transfer was already sent again after a closing HTTP/2 session failed it.
        var resentOnClosingSession: Bool {
            _read { yield fields.value.resentOnClosingSession }
            _modify { yield &fields.value.resentOnClosingSession }
        }
    }

    /// Changes the running hop in place, returning what `change` returns (nil when no hop runs).
    /// The hop is taken out of the state for the change — the state is `finished` meanwhile, which
    /// no event sees — so the hop's box, and a held body in it, have one owner and are not copied.
    @discardableResult
    mutating func changeRunningHop<Result>(_ change: (inout Hop) -> Result) -> Result? {
        guard case .running(var hop) = state else { return nil }
        state = .finished
        defer { state = .running(hop) }
        return change(&hop)
    }

    /// What a hop does with its response.
    enum Phase {
        /// Nothing decided yet: a body goes to the consumer, or to memory.
        case open
        /// The head decided to follow `next` after this hop: its body is thrown away, up to
        /// ``RequestStateMachine/drainLimit`` bytes; past that the hop is stopped (`aborted`).
        case draining(next: Request, bytes: Int, aborted: Bool)
        /// A failure response kept from the body consumer until the retry decision.
        case holding(HeldResponse)
        /// The consumer has this response; `replay` are held bytes it has not taken yet.
        case delivering(replay: Data?)
    }

    /// A method and absolute URL.
    struct Target: Equatable {
        var method: HTTPRequest.Method
        var url: String
    }

    /// An attempt's outcome waiting for the retry decision.
    struct AttemptEnd {
        var result: Result<Response, RequestError>
        var outcome: AttemptOutcome
        /// The failure response held from the body consumer, released to it if it is the outcome.
        var held: HeldResponse?
    }

    /// The moment of an event, on the monotonic clock: what durations and deadlines are measured by.
    struct Moment {
        /// `MonotonicClock` nanoseconds.
        var now: UInt64
    }

    /// Where a retry policy's decision reads the wall clock (for `Retry-After` dates) and a number
    /// in `0..<1` (that picks a jittered backoff): given at init, so the machine reads no clock
    /// and no random source of its own — the system's in a transport, fixed ones in tests. Only
    /// that decision asks, so an event pays for neither.
    struct Readings: Sendable {
        /// The wall clock now.
        var date: @Sendable () -> Date
        /// A random number in `0..<1`.
        var jitter: @Sendable () -> Double

        /// The system's wall clock and random source.
        static let system = Readings(date: { Date() }, jitter: { Double.random(in: 0..<1) })

        /// Always `date` and `jitter`.
        static func fixed(date: Date, jitter: Double) -> Readings {
            Readings(date: { date }, jitter: { jitter })
        }
    }

    /// A redirect body larger than this is not drained: the hop is stopped (closing its
    /// connection) and the redirect followed anyway.
    static let drainLimit = 1 << 20
    /// The most of a failure response's body held back for the retry decision; beyond it the
    /// response goes to the consumer, and is not retried.
    static let holdLimit = 64 << 10
    /// The most attempts however the retriers decide, unless the policy allows more.
    static let retrierAttemptLimit = 10

    let setup: Setup
    var state = State.initial
    /// The running (or last) attempt's number, from 1.
    var attempt = 0
    /// The request as adapted for the running attempt.
    var attemptRequest: Request
    /// When the running attempt was handed to a transfer.
    var attemptStartedAt: UInt64 = 0
    /// The attempts that have ended.
    var records: [AttemptRecord] = []
    /// Redirects followed in the running attempt.
    var hops: [RedirectHop] = []
    /// `"METHOD URL"` of each request of the running attempt, for loop detection; filled at the
    /// first redirect, so a response that is not one costs nothing here.
    var visited: Set<String> = []
    /// The running attempt's first target.
    var firstTarget: Target?
    /// Whether the transport is shutting down: no further attempt is started.
    var isShuttingDown = false
    /// Whether a timer for the total timeout was asked for (one serves every interceptor wait).
    private var isDeadlineArmed = false

    init(_ setup: Setup) {
        self.setup = setup
        attemptRequest = setup.original
    }

    /// Whether the request counts against the transport's retry budget: its policy may retry it.
    var countsInRetryBudget: Bool { setup.retries.maximumAttempts > 1 }

    /// The most attempts this request may make.
    var attemptLimit: Int {
        setup.hasRetriers ? max(setup.retries.maximumAttempts, Self.retrierAttemptLimit) : setup.retries.maximumAttempts
    }

    /// Whether the outcome was reported.
    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    // MARK: Start

    /// The request starts: its first attempt is adapted or sent.
    mutating func start(at moment: Moment) -> Actions {
        guard case .initial = state else { return Actions() }
        var actions = Actions()
        if setup.isObserved { actions.append(.notify(.started(setup.original))) }
        if countsInRetryBudget { actions.append(.countRequestInBudget) }
        return actions.then(beginAttempt(1, at: moment))
    }

    /// The caller was cancelled before the request started: it starts and ends at once, so
    /// observers see it like any other request, and nothing is sent.
    mutating func startCancelled(_ message: String, at moment: Moment) -> Actions {
        guard case .initial = state else { return Actions() }
        let started = setup.isObserved ? Actions(.notify(.started(setup.original))) : Actions()
        return started.then(cancel(message, at: moment))
    }

    /// Attempt `number` begins: adapters first, if any.
    private mutating func beginAttempt(_ number: Int, at moment: Moment) -> Actions {
        attempt = number
        guard setup.hasAdapters else { return send(setup.original, at: moment) }
        state = .adapting
        let context = AttemptContext(requestID: setup.id, attempt: number, previousAttempts: records)
        return Actions(.runAdapters(setup.original, context)).then(armDeadline(at: moment))
    }

    /// The adapters of the running attempt answered.
    mutating func adapted(_ result: Result<Request, RequestError>, at moment: Moment) -> Actions {
        guard case .adapting = state else { return Actions() }
        switch result {
        case .success(let request): return send(request, at: moment)
        case .failure(let error): return finish(.failure(error), at: moment)
        }
    }

    /// Sends `request` as the running attempt's first hop, with what is left of the total timeout.
    private mutating func send(_ request: Request, at moment: Moment) -> Actions {
        guard let request = withTimeLeft(request, at: moment) else {
            return finish(.failure(RequestError(
                .totalTimedOut, "the total timeout ran out before the next attempt",
                method: request.method, url: request.url)), at: moment)
        }
        attemptRequest = request
        // Only a retry has these to clear: an assignment destroys the old value through its type's
        // metadata (a lookup and an indirect call each), even when it is empty.
        if !hops.isEmpty { hops = [] }
        if !visited.isEmpty { visited = [] }
        if case .some = firstTarget { firstTarget = nil }
        state = .running(Hop(request: request))
        return Actions(.send(request, .attempt(attempt)))
    }

    /// The executor prepared the running hop's request and hands it to a transfer now.
    mutating func sending(_ target: Target, at moment: Moment) -> Actions {
        if case .plain = state, firstTarget == nil {
            firstTarget = target
            attemptStartedAt = moment.now
            return Actions()
        }
        enterRunningHop()
        guard changeRunningHop({ $0.target = target }) != nil else { return Actions() }
        guard firstTarget == nil else { return Actions() }
        firstTarget = target
        attemptStartedAt = moment.now
        return setup.isObserved ? Actions(.notify(.attemptStarted(attemptRequest, attempt: attempt, url: target.url))) : Actions()
    }

    /// The running hop's request cannot be sent (an invalid URL, a body that fails to prepare).
    mutating func sendFailed(_ error: RequestError, at moment: Moment) -> Actions {
        enterRunningHop()
        guard case .running = state else { return Actions() }
        // A redirect's next request that cannot be sent ends the attempt, as its transfer would.
        if firstTarget != nil { return attemptEnded(.failure(error), at: moment) }
        return finish(.failure(error), at: moment)
    }

    // MARK: Cancel, shutdown, timers

    /// The caller cancelled (or `cancelAll`): the request ends now, in whatever state.
    mutating func cancel(_ message: String, at moment: Moment) -> Actions {
        end(.cancelled, message, at: moment)
    }

    /// The transport began shutting down: a request between attempts ends now; a running one
    /// finishes its attempt but starts no other.
    mutating func shutdown(at moment: Moment) -> Actions {
        isShuttingDown = true
        switch state {
        case .plain, .running, .finished: return Actions()
        default: return end(.transportShutDown, Self.shutDownMessage, at: moment)
        }
    }

    /// Why a request between attempts failed when the transport shut down.
    static let shutDownMessage = "the transport shut down while the request waited to be retried"

    /// Ends the request with an error of `code`: a running transfer is stopped (its attempt
    /// recorded), running interceptors are cancelled.
    private mutating func end(_ code: RequestError.Code, _ message: String, at moment: Moment) -> Actions {
        switch state {
        case .finished:
            return Actions()
        case .plain:
            enterRunningHop()
            return end(code, message, at: moment)
        case .running(let hop):
            let target = hop.target ?? Target(method: hop.request.method, url: hop.request.url)
            let error = RequestError(code, message, method: target.method, url: target.url)
            let stop = Action.stopTransfer(reportsFinalProgress: forwardsProgress)
            return Actions(stop).then(attemptEnded(.failure(error), at: moment))
        case .adapting, .decidingRetry:
            let error = RequestError(code, message, method: setup.original.method, url: setup.original.url)
            return Actions(.cancelInterceptors).then(finish(.failure(error), at: moment))
        case .initial, .awaitingBudget, .waitingToRetry:
            let error = RequestError(code, message, method: setup.original.method, url: setup.original.url)
            return finish(.failure(error), at: moment)
        }
    }

    /// Which timer fired.
    enum Timer: Equatable {
        /// The total timeout, armed while interceptors run.
        case deadline
        /// The backoff after attempt `n`.
        case backoff(attempt: Int)
    }

    /// A timer fired.
    mutating func timerFired(_ timer: Timer, at moment: Moment) -> Actions {
        switch (timer, state) {
        case (.backoff(let number), .waitingToRetry) where number == attempt:
            if isShuttingDown { return end(.transportShutDown, Self.shutDownMessage, at: moment) }
            return beginAttempt(attempt + 1, at: moment)
        case (.deadline, .adapting), (.deadline, .decidingRetry), (.deadline, .awaitingBudget), (.deadline, .waitingToRetry):
            // In a transfer, curl's own total timeout applies; a backoff never outlasts it.
            return end(.totalTimedOut, "the total timeout ran out while the request's interceptors ran", at: moment)
        default:
            return Actions()
        }
    }

    /// A timer for the total timeout, the first time an interceptor wait needs one.
    mutating func armDeadline(at moment: Moment) -> Actions {
        guard let timeLeft = timeLeft(at: moment), !isDeadlineArmed else { return Actions() }
        isDeadlineArmed = true
        return Actions(.armDeadline(after: timeLeft))
    }

    // MARK: Time

    /// What is left of the total timeout, if there is one.
    func timeLeft(at moment: Moment) -> Duration? {
        setup.deadline.map { .nanoseconds(Int64($0 &- min($0, moment.now))) }
    }

    /// `request` with what is left of the total timeout as its own; `nil` if none is left.
    func withTimeLeft(_ request: Request, at moment: Moment) -> Request? {
        guard let timeLeft = timeLeft(at: moment) else { return request }
        guard timeLeft > .zero else { return nil }
        var request = request
        request.timeouts.total = timeLeft
        return request
    }

    // MARK: Completion

    /// How long the request has taken at `moment`.
    func duration(at moment: Moment) -> Duration {
        .nanoseconds(Int64(moment.now &- setup.startedAt))
    }

    /// Reports `result`, exactly once: with the running attempt's hops and every attempt's
    /// record, and a held failure response for the consumer first.
    mutating func finish(_ result: consuming Result<Response, RequestError>, release held: HeldResponse? = nil, at moment: Moment) -> Actions {
        state = .finished
        let duration = self.duration(at: moment)
        switch consume result {
        case .success(var response):
            if !hops.isEmpty {
                response.redirects = hops
                response.metrics.redirectCount = hops.count
            }
            response.attempts = records
            return Actions(.complete(.success(response), release: held, duration: duration))
        case .failure(var error):
            error.attempts = records
            return Actions(.complete(.failure(error), release: nil, duration: duration))
        }
    }
}
