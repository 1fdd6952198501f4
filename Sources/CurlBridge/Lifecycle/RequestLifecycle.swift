import Dispatch
import Foundation
import HTTPTypes
import Synchronization

/// One send, across all its attempts and redirects: the layer above ``Transport`` that DESIGN.md
/// describes. It runs the adapters before each attempt, starts one curl transfer per attempt and
/// per redirect hop — all under the same transfer id, so the caller's handle cancels whichever is
/// running — follows redirects, asks the retriers and the ``RetryPolicy`` what to do after a
/// failure, waits between attempts on a timer (holding no thread), tells the event monitors, and
/// reports to the caller's events as if there had been one transfer: the final head, the final
/// body, one outcome carrying the hops and the attempts.
///
/// The decisions are pure values (``RedirectStep``, ``RetryStep``); this type wires them to the
/// events. Attempt events arrive on the transport's loop; adapters and retriers run in tasks, and
/// come back to the loop through ``CurlMultiLoop/Command/wake(id:next:)``. The state sits behind a
/// mutex because the events are `Sendable` closures.
final class RequestLifecycle: Sendable {
    struct State {
        /// The running attempt's number, from 1.
        var attempt = 0
        /// When the running attempt was handed to curl (`MonotonicClock` nanoseconds).
        var attemptStartedAt: UInt64 = 0
        /// The attempts that have ended.
        var records: [AttemptRecord] = []
        /// The request as adapted for the running attempt.
        var attemptRequest: Request
        /// The request the running hop sent.
        var request: Request
        /// Redirects followed in the running attempt.
        var hops: [RedirectHop] = []
        /// The running attempt's first method and absolute URL.
        var first: (method: HTTPRequest.Method, url: String)?
        /// `"METHOD URL"` of every request of the running attempt, for loop detection; filled at
        /// the first redirect, so that a response that is not one costs nothing here.
        var visited: Set<String> = []
        /// The next request, once the running hop's head decided to follow it.
        var pendingFollow: Request?
        /// Body bytes of the running hop's redirect response thrown away so far.
        var drainedBytes = 0
        /// Whether the running hop was stopped because its redirect body was too large to drain.
        var drainAborted = false
        /// A failure response kept from a body consumer until the retry decision is made.
        var held: HeldResponse?
        /// Held body bytes the consumer has not taken yet, after the head was released mid-body.
        var replay: Data?
        /// The task running adapters or retriers, cancelled if the request is.
        var task: Task<Void, Never>?
        /// Whether the running attempt's response reached the consumer (its head, or body bytes):
        /// then it is never retried, which would hand the consumer a second response.
        var consumerHasResponse = false
        /// Whether the outcome was reported.
        var isComplete = false
    }

    /// A failure response's head and the start of its body, held back from a body consumer.
    struct HeldResponse {
        var head: ResponseHead
        var body = Data()
    }

    /// A redirect body larger than this is not drained: the hop is stopped (closing its
    /// connection) and the redirect followed anyway.
    static let drainLimit = 1 << 20
    /// The most of a failure response's body held back for the retry decision; beyond it the
    /// response goes to the consumer, and is not retried.
    static let holdLimit = 64 << 10
    /// The most attempts however the retriers decide, unless the policy allows more.
    static let retrierAttemptLimit = 10

    let state: Mutex<State>
    let id: UInt64
    let environment: LifecycleEnvironment
    /// The request as the caller gave it; every attempt starts from it.
    let original: Request
    let redirectPolicy: RedirectPolicy
    let retryPolicy: RetryPolicy
    /// Client-wide adapters first, then the request's own.
    let adapters: [any RequestAdapter]
    /// The request's own retriers first, then the client-wide ones.
    let retriers: [any RequestRetrier]
    let monitors: MonitorHub
    /// The request's `debug` lines; `nil` when its logger is above `debug`.
    let log: RequestLog?
    /// When the request started (`MonotonicClock` nanoseconds).
    let startedAt: UInt64
    /// When the total timeout runs out for all attempts, if it has one.
    let deadline: UInt64?
    let downstream: TransferEvents

    /// Creates the lifecycle of `request`, numbered `id` in its transport, which started at
    /// `startedAt` (`MonotonicClock` nanoseconds; now, unless its first attempt ran without one).
    init(request: Request, id: UInt64, environment: LifecycleEnvironment, events: TransferEvents, startedAt: UInt64 = MonotonicClock.now) {
        state = Mutex(State(attemptRequest: request, request: request))
        self.id = id
        self.environment = environment
        original = request
        redirectPolicy = request.redirectPolicy ?? environment.redirects
        retryPolicy = request.retryPolicy ?? environment.retryPolicy
        adapters = request.interceptors.isEmpty
            ? environment.adapters : environment.adapters + request.interceptors.filter(\.adaptsRequests)
        retriers = request.interceptors.isEmpty
            ? environment.retriers : request.interceptors.filter(\.decidesRetries) + environment.retriers
        monitors = MonitorHub(monitors: environment.monitors)
        log = RequestLog(logger: environment.defaults.logging.logger, options: environment.defaults.logging.options, request: request, id: id)
        self.startedAt = startedAt
        let total = environment.defaults.timeouts.overridden(by: request.timeouts).total
        deadline = total.map { startedAt &+ UInt64(max(0, $0.seconds) * 1e9) }
        downstream = events
    }

    /// How the first attempt begins.
    enum FirstAttempt {
        /// Hand this to curl (the transport submits it, so a blocking caller can drive it).
        case start(PreparedRequest, TransferEvents)
        /// Adapters must run first: the transport suspends the request, then calls ``adaptFirstAttempt()``.
        case adapt(CurlMultiLoop.WaitingRequest)
        /// The request failed before any attempt (its outcome is reported).
        case completed
    }

    /// Starts the request: tells the monitors, counts it against the retry budget, and says how
    /// the first attempt begins.
    func begin() -> FirstAttempt {
        let request = original
        let id = self.id
        monitors.notify { $0.requestDidStart(request, id: id) }
        if retryPolicy.maximumAttempts > 1 { environment.budget.recordRequest(now: startedAt) }
        state.withLock { $0.attempt = 1 }
        if !adapters.isEmpty { return .adapt(waitingRequest) }
        guard let prepared = prepareAttempt(original) else { return .completed }
        return .start(prepared, attemptEvents)
    }

    /// Takes over a request whose first attempt ran without a lifecycle (see
    /// ``LifecycleEnvironment/deferringEvents(for:prepared:id:events:)``) and ended with `result`,
    /// which needs one: a redirect to follow, a failure to retry or report with its attempt. Call on
    /// the loop, inside that attempt's `onComplete`, as an attempt's own completion runs.
    func adoptFirstAttempt(_ request: Request, prepared: PreparedRequest, ended result: Result<Response, RequestError>) {
        state.withLock { state in
            state.attempt = 1
            state.attemptRequest = request
            state.request = request
            state.first = (prepared.method, prepared.url)
            state.attemptStartedAt = startedAt
        }
        complete(result)
    }

    /// Runs the adapters for the first attempt, in a task created here — on the caller's thread,
    /// so an async caller's task-local values (a trace context) reach them — then starts it.
    func adaptFirstAttempt() {
        scheduleDeadline()
        adaptThenLaunch(original)
    }

    /// Starts the next attempt from the original request: adapters first, if any.
    func startNextAttempt() {
        state.withLock { $0.attempt += 1 }
        guard !adapters.isEmpty else { return launch(original) }
        suspendUntilDeadline()
        adaptThenLaunch(original)
    }

    /// Suspends the request in the loop while its adapters or retriers run — call on the loop —
    /// with the total timeout still running.
    func suspendUntilDeadline() {
        environment.loop.suspend(id: id, waitingRequest)
        scheduleDeadline()
    }

    /// Ends the request with ``RequestError/Code/totalTimedOut`` if it is still waiting for its
    /// interceptors when the total timeout runs out (if it is in curl by then, curl's own timeout
    /// ends it; a backoff wait never outlasts the timeout).
    func scheduleDeadline() {
        guard let timeLeft else { return }
        wake(after: timeLeft) { lifecycle in
            lifecycle.state.withLock { $0.task }?.cancel()
            lifecycle.finish(.failure(RequestError(
                .totalTimedOut, "the total timeout ran out while the request's interceptors ran",
                method: lifecycle.original.method, url: lifecycle.original.url)))
        }
    }

    /// After `delay`, runs `next` on the loop if the request is still waiting then (not cancelled
    /// or ended meanwhile). The timer runs on a global queue, not the loop's: while transfers are
    /// in flight the loop's queue runs the loop without a break, and the timer would wait for all
    /// of them. It holds the lifecycle weakly, so an ended wait lets it go at once.
    func wake(after delay: Duration, _ next: @escaping @Sendable (RequestLifecycle) -> Void) {
        let (loop, id) = (environment.loop, self.id)
        let nanoseconds = Int(min(max(0, delay.seconds) * 1e9, Double(Int.max / 2)))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self else { return }
            loop.submit(.wake(id: id) { next(self) })
        }
    }

    /// What is left of the total timeout, if there is one.
    var timeLeft: Duration? {
        deadline.map { .nanoseconds(Int64($0 &- min($0, MonotonicClock.now))) }
    }

    /// Runs the adapters in a task, then comes back to the loop to launch the adapted request
    /// (or fail with the adapter's error). The request is suspended in the loop meanwhile.
    private func adaptThenLaunch(_ request: Request) {
        let context = attemptContext
        let adapters = self.adapters
        let loop = environment.loop
        let id = self.id
        let task = Task {
            let adapted = await InterceptorChain.adapt(request, with: adapters, context: context)
            loop.submit(.wake(id: id) {
                switch adapted {
                case .success(let request): self.launch(request)
                case .failure(let error): self.finish(.failure(error))
                }
            })
        }
        keep(task)
    }

    /// Records the task running the request's interceptors, so that ending the request cancels
    /// it; cancels it at once if the request already ended (a cancel that came first).
    func keep(_ task: Task<Void, Never>) {
        let ended = state.withLock { state in
            if !state.isComplete { state.task = task }
            return state.isComplete
        }
        if ended { task.cancel() }
    }

    /// The context adapters and retriers see for the running attempt.
    var attemptContext: AttemptContext {
        state.withLock { AttemptContext(requestID: id, attempt: $0.attempt, previousAttempts: $0.records) }
    }

    /// What the loop holds while the request waits between attempts: cancelling or shutting
    /// down ends it with that error.
    var waitingRequest: CurlMultiLoop.WaitingRequest {
        CurlMultiLoop.WaitingRequest(method: original.method, url: original.url) { error in
            self.state.withLock { $0.task }?.cancel()
            self.finish(.failure(error))
        }
    }

    /// Hands the attempt's (adapted) request to curl, on the loop.
    func launch(_ request: Request) {
        guard let prepared = prepareAttempt(request) else { return }
        environment.loop.startNextAttempt(id: id, request: prepared, events: attemptEvents)
    }

    /// `request` with what is left of the total timeout as its own; `nil` if none is left.
    func withTimeLeft(_ request: Request) -> Request? {
        guard let timeLeft else { return request }
        guard timeLeft > .zero else { return nil }
        var request = request
        request.timeouts.total = timeLeft
        return request
    }

    /// Gives `request` what is left of the total timeout, prepares it, and records it as the
    /// running attempt's; reports the failure and returns `nil` if it cannot be sent.
    private func prepareAttempt(_ request: Request) -> PreparedRequest? {
        guard let request = withTimeLeft(request) else {
            finish(.failure(RequestError(
                .totalTimedOut, "the total timeout ran out before the next attempt", method: request.method, url: request.url)))
            return nil
        }
        let prepared: PreparedRequest
        switch request.prepared(with: environment.defaults) {
        case .success(let ready): prepared = ready
        case .failure(let problem):
            finish(.failure(problem))
            return nil
        }
        let attempt = state.withLock { state in
            state.attemptRequest = request
            state.request = request
            state.first = (prepared.method, prepared.url)
            state.hops = []
            state.visited = []
            state.pendingFollow = nil
            state.drainedBytes = 0
            state.drainAborted = false
            state.held = nil
            state.replay = nil
            state.consumerHasResponse = false
            state.task = nil
            state.attemptStartedAt = MonotonicClock.now
            return state.attempt
        }
        let (id, adapted) = (self.id, request)
        monitors.notify { $0.attemptDidStart(adapted, id: id, attempt: attempt) }
        log?.attemptStarted(adapted, attempt: attempt, url: prepared.url)
        return prepared
    }

    /// Reports the outcome, exactly once: with the running attempt's hops, every attempt's
    /// record, and a held failure response released to the consumer first.
    func finish(_ result: Result<Response, RequestError>) {
        let taken: (hops: [RedirectHop], records: [AttemptRecord], held: HeldResponse?)? = state.withLock { state in
            guard !state.isComplete else { return nil }
            state.isComplete = true
            defer { state.held = nil }
            return (state.hops, state.records, state.held)
        }
        guard let (hops, records, held) = taken else { return }
        var result = result
        if let held, case .success = result, let failure = release(held) {
            result = .failure(failure)
        }
        switch result {
        case .success(var response):
            if !hops.isEmpty {
                response.redirects = hops
                response.metrics.redirectCount = hops.count
            }
            response.attempts = records
            result = .success(response)
        case .failure(var error):
            error.attempts = records
            result = .failure(error)
        }
        let request = original
        let id = self.id
        let duration = Duration.nanoseconds(Int64(MonotonicClock.now &- startedAt))
        monitors.notify { [result] in $0.requestDidComplete(request, id: id, result: result, duration: duration) }
        log?.completed(result, attempts: records.count, duration: duration)
        downstream.onComplete(result)
    }

    /// Gives a held failure response to the body consumer after all: its head, then its body.
    ///
    /// - Returns: The consumer's refusal, if it refused.
    private func release(_ held: HeldResponse) -> RequestError? {
        if let refusal = handOver(held.head) { return refusal }
        guard !held.body.isEmpty, let onBodyChunk = downstream.onBodyChunk else { return nil }
        let verdict = held.body.withUnsafeBytes { onBodyChunk($0) }
        switch verdict {
        case .accept: return nil
        case .fail(let error): return error
        case .pause:
            // A consumer that has received nothing yet has room for the held bytes (at most
            // `holdLimit`); one that pauses anyway cannot be resumed, as the transfer is over.
            return RequestError(.transportFailure, "the body consumer refused the response body after the transfer ended")
        }
    }

    /// Gives `head` to the consumer, with the running attempt's hops, and notes that the consumer
    /// now has this attempt's response.
    ///
    /// - Returns: The consumer's refusal, if it refused.
    func handOver(_ head: ResponseHead) -> RequestError? {
        var head = head
        head.redirects = state.withLock { state in
            state.consumerHasResponse = true
            return state.hops
        }
        return downstream.onResponseHead?(head)
    }

    /// Records the running attempt's end.
    func recordAttempt(_ outcome: AttemptRecord.Outcome) -> AttemptRecord {
        state.withLock { state in
            let duration = Duration.nanoseconds(Int64(MonotonicClock.now &- state.attemptStartedAt))
            let record = AttemptRecord(number: state.attempt, outcome: outcome, duration: duration)
            state.records.append(record)
            return record
        }
    }
}
