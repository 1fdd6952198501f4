import Dispatch
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request, from its start to its one completion: feeds its ``RequestStateMachine`` every
/// event and performs what the machine returns — hands hops to the transport's engine, runs
/// interceptors in tasks, arms timers, tells the observers, reports to the caller's events. It
/// decides nothing itself.
///
/// It is also the ``TransferReceiver`` of each of its transfers: heads, body pieces and ends go
/// through the machine, which routes them (to the consumer, to memory, held, drained).
///
/// Made and started on the caller's thread, then handed to the transport's loop inside the work
/// that registers it; from ``RequestRegistry/run(_:)`` on, touched
/// only by the loop — tasks and timers come back through the loop's inbox, by id. What the
/// caller's thread still runs after the hand-over (the first adapters, the deadline) is in
/// ``tasks``, which any thread may hold. Not `Sendable`: it crosses threads only in that one
/// hand-over.
final class RequestExecutor {
    /// What runs off the loop for it: its number, interceptors and timers.
    let tasks: RequestTasks
    /// Unchecked at run time (no `swift_beginAccess` per event): no two accesses to it overlap.
    /// Its methods do no I/O and call nothing of the executor's; the one caller code they run, a
    /// redirect policy's handler, can reach an executor only through the loop's inbox
    /// (``RequestLoop/submit(isNewRequest:_:)``), which never runs work inline. Keep it so: work run inline from
    /// inside a machine method would make a second access here undefined behaviour, not a trap.
    @exclusivity(unchecked) var machine: RequestStateMachine
    /// The caller's events.
    let downstream: TransferEvents
    /// The monitors and the request's debug log: one channel.
    private let observers: [any RequestObserver]
    /// Whether monitors want heads (the log does not).
    let hasMonitors: Bool
    /// The level of the caller's request's effective logger, read once when the executor is made;
    /// a hop other than a plain request's first reads its own request's again (an adapter may
    /// have given it another logger).
    private let requestLogLevel: Logger.Level
    /// The running hop's body, when no consumer takes it: inside the executor, not an object of
    /// its own. Changed by every body piece, so, like ``machine``, unchecked at run time.
    @exclusivity(unchecked) var memory = MemoryBody()
    /// The registry holding it, from ``run(in:)`` to its completion (its events then run on the
    /// loop); `nil` before and after.
    private(set) var registry: RequestRegistry?
    /// The first hop's request, prepared on the caller's thread by ``start()``, until the loop
    /// hands it to the engine in ``run(in:)``; `nil` when adapters run first.
    private var firstHop: PreparedRequest?
    /// Actions of events that arrived while actions ran (a transfer that ends as it begins), to
    /// perform after them, in order. Read and written on every action, so, like ``machine``,
    /// unchecked at run time: only the thread that owns the executor (its maker, then the loop)
    /// touches them, and no access to them spans a call that could touch them again.
    @exclusivity(unchecked) private var pending: [RequestStateMachine.Action] = []
    @exclusivity(unchecked) private var isPerforming = false
    /// Whether the registry will tell it the loop's turn ended (its body sink took pieces that
    /// it announces then).
    var awaitsTurnEnd = false

    init(request: Request, id: UInt64, events: consuming TransferEvents, environment: LifecycleEnvironment) {
        let own = request.interceptors  // read once: each read of a request's field is a retain and a release
        let adapters = own.isEmpty ? environment.adapters : environment.adapters + own.filter(\.adaptsRequests)
        let retriers = own.isEmpty ? environment.retriers : own.filter(\.decidesRetries) + environment.retriers
        let hasMonitors = !environment.monitors.monitors.isEmpty
        var observers: [any RequestObserver] = hasMonitors ? [environment.monitors] : []
        // Read once for the log and a plain first hop's trace (see ``start()``).
        let logLevel = environment.defaults.logging.level(of: request)
        requestLogLevel = logLevel
        if let log = RequestLog(environment.defaults.logging, request: request, id: id, level: logLevel) {
            observers.append(log)
        }
        self.observers = observers
        tasks = RequestTasks(
            id: id, environment: environment, adapters: adapters, retriers: retriers,
            interceptors: adapters.isEmpty && retriers.isEmpty ? nil : InterceptorTask())
        self.hasMonitors = hasMonitors
        let startedAt = MonotonicClock.now
        let total = environment.defaults.timeouts.overridden(by: request.timeouts).total
        let policies = Self.policies(of: request, shared: environment.policies)
        machine = RequestStateMachine(.init(
            id: id, original: request, policies: policies,
            hasAdapters: !adapters.isEmpty, hasRetriers: !retriers.isEmpty,
            consumer: .init(takesHead: events.onResponseHead != nil, takesBody: events.takesBody, takesProgress: events.onProgress != nil),
            isObserved: !observers.isEmpty, startedAt: startedAt,
            deadline: total.map { startedAt &+ UInt64(max(0, $0.seconds) * 1e9) }))
        downstream = events  // its last use: moved, not copied field by field
    }

    /// The policies `request` follows: the transport's `shared` ones, unless it brings its own.
    private static func policies(of request: Request, shared: RequestStateMachine.Policies) -> RequestStateMachine.Policies {
        guard request.bringsOwnPolicies else { return shared }
        return RequestStateMachine.Policies(
            redirects: request.redirectPolicy ?? shared.redirects, retries: request.retryPolicy ?? shared.retries,
            defaultHeaders: shared.defaultHeaders, readings: shared.readings)
    }

    /// The request's number.
    var id: UInt64 { tasks.id }

    /// What the transport gives every request.
    var environment: LifecycleEnvironment { tasks.environment }

    /// The moment of an event.
    var moment: RequestStateMachine.Moment {
        .init(now: MonotonicClock.now)
    }

    // MARK: Starting (on the caller's thread)

    /// What the caller's thread does once the request is handed to the loop (the first hop, if
    /// prepared, waits in the executor for the loop): run the first adapters, arm the total
    /// timeout, or — for most requests — nothing.
    ///
    /// A class, made only when there is something to do: the caller's closure holds one
    /// reference, where a copy of the request's ``RequestTasks`` (two arrays and an optional) cost
    /// three copies and three destroys through their types' metadata on every request (issue 37).
    final class Launch: Sendable {
        /// Nothing to do.
        static let nothing = Launch(tasks: nil, adapters: nil, deadline: nil)

        /// What runs the adapters and the timer; `nil` only for ``nothing``.
        private let tasks: RequestTasks?
        /// The first attempt's adapters, to run in a task made on the caller's thread — so an
        /// async caller's task-local values (a trace context) reach them.
        private let adapters: (Request, AttemptContext)?
        /// A timer for the total timeout while they run.
        private let deadline: Duration?

        private init(tasks: RequestTasks?, adapters: (Request, AttemptContext)?, deadline: Duration?) {
            self.tasks = tasks
            self.adapters = adapters
            self.deadline = deadline
        }

        /// What `tasks` launch: the first `adapters`, a total timeout's `deadline`; ``nothing``
        /// when neither is given.
        static func launching(
            _ adapters: (Request, AttemptContext)?, deadline: Duration?, with tasks: RequestTasks
        ) -> Launch {
            guard adapters != nil || deadline != nil else { return .nothing }
            return Launch(tasks: tasks, adapters: adapters, deadline: deadline)
        }

        /// Runs what this launch names, on the caller's thread, once the loop holds the request.
        func run() {
            guard let tasks else { return }
            if let (request, context) = adapters { tasks.runAdapters(request, context) }
            if let deadline { tasks.arm(.deadline, after: deadline) }
        }
    }

    /// Starts the request on the caller's thread: tells the observers, prepares the first hop or
    /// names the adapters to run. `nil` when the request already completed (it cannot be sent).
    func start() -> Launch? {
        if let plain = machine.startPlainly() {
            if plain.countsInBudget { perform(.countRequestInBudget) }
            // Plain, so not observed: its log level is above debug, and its hop is not traced.
            assert(requestLogLevel > .debug, "a plain request has no request log")
            guard let prepared = prepare(machine.setup.original, logLevel: requestLogLevel) else { return nil }
            firstHop = prepared
            return .nothing
        }
        var adapters: (Request, AttemptContext)?
        var deadline: Duration?
        for action in machine.start(at: moment) {
            switch action {
            case .send(let request, _):
                guard let prepared = prepare(request) else { return nil }
                firstHop = prepared
            case .runAdapters(let request, let context): adapters = (request, context)
            case .armDeadline(let delay): deadline = delay
            default: perform(action)
            }
        }
        return .launching(adapters, deadline: deadline, with: tasks)
    }

    /// Ends a request whose caller was cancelled before it started, on the caller's thread.
    func startCancelled(_ message: String) {
        perform(machine.startCancelled(message, at: moment))
    }

    /// Ends a request the loop refused (the transport shut down), on the caller's thread.
    func refuse(_ error: RequestError) {
        perform(machine.finish(.failure(error), at: moment))
    }

    // MARK: On the loop

    /// `registry` holds the request now: its first hop, if prepared, goes to the engine.
    func run(in registry: RequestRegistry) {
        self.registry = registry
        if let prepared = firstHop {
            firstHop = nil
            begin(prepared)
        }
    }

    /// The caller cancelled it, or all requests.
    func cancel(_ message: String) {
        perform(machine.cancel(message, at: moment))
    }

    /// The transport began shutting down.
    func shutdown() {
        perform(machine.shutdown(at: moment))
    }

    /// The adapters answered.
    func adapted(_ result: Result<Request, RequestError>) {
        perform(machine.adapted(result, at: moment))
    }

    /// The retriers decided.
    func retriersDecided(_ decision: RetryDecision) {
        perform(machine.retriersDecided(decision, at: moment))
    }

    /// A timer fired.
    func timerFired(_ timer: RequestStateMachine.Timer) {
        perform(machine.timerFired(timer, at: moment))
    }

    // MARK: Actions

    /// Performs `actions` in order, after any still pending. Consumed, as each action is, so that
    /// a single action is not copied to be performed (the actions of `.many`, and pending ones,
    /// still are; a completion's result is still copied out of its boxed action).
    func perform(_ actions: consuming RequestStateMachine.Actions) {
        switch consume actions {
        case .none:
            return
        case .one(let action):
            perform(action)
        case .many(let actions):
            guard !isPerforming else {
                pending.append(contentsOf: actions)
                return
            }
            isPerforming = true
            for action in actions { execute(action) }
            performPending()
        }
    }

    /// Performs `action`, after any still pending.
    func perform(_ action: consuming RequestStateMachine.Action) {
        guard !isPerforming else {
            pending.append(action)
            return
        }
        isPerforming = true
        execute(action)
        performPending()
    }

    /// Performs the actions of events that arrived while actions ran, then ends the performing.
    @inline(__always)
    private func performPending() {
        var next = 0
        while next < pending.count {
            execute(pending[next])
            next += 1
        }
        pending.removeAll(keepingCapacity: true)
        isPerforming = false
    }

    private func execute(_ action: consuming RequestStateMachine.Action) {
        switch consume action {
        case .send(let request, _):
            if let prepared = prepare(request) { begin(prepared) }
        case .runAdapters(let request, let context):
            tasks.runAdapters(request, context)
        case .runRetriers(let outcome, let request, let context):
            tasks.runRetriers(after: outcome, of: request, context)
        case .cancelInterceptors:
            tasks.interceptors?.cancel()
        case .countRequestInBudget:
            environment.budget.recordRequest(now: machine.setup.startedAt)
        case .withdrawRetryFromBudget:
            let granted = environment.budget.withdrawRetry(now: MonotonicClock.now)
            perform(machine.budgetAnswered(granted: granted, at: moment))
        case .armDeadline(let delay):
            tasks.arm(.deadline, after: delay)
        case .wait(let delay, let timer):
            tasks.arm(timer, after: delay)
        case .stopTransfer(let reportsFinalProgress):
            let progress = registry?.engine.stop(id)
            if reportsFinalProgress, let progress { downstream.onProgress?(progress) }
        case .notify(let event):
            observe(event)
        case .complete(let result, let held, let duration):
            complete(consume result, releasing: held, duration: duration)
        }
    }

    /// `request` prepared for a transfer, the machine told; `nil` (the machine told) when it
    /// cannot be sent.
    ///
    /// - Parameter logLevel: The level of `request`'s effective logger, when known: the caller's
    ///   request's, read when the executor was made.
    private func prepare(_ request: Request, logLevel: Logger.Level? = nil) -> PreparedRequest? {
        switch request.prepared(with: environment.defaults, logLevel: logLevel) {
        case .success(let prepared):
            if downstream.body == nil { memory.collect(for: prepared) } else { memory.stop() }
            perform(machine.sending(.init(method: prepared.method, url: prepared.url), at: moment))
            return prepared
        case .failure(let problem):
            perform(machine.sendFailed(problem, at: moment))
            return nil
        }
    }

    /// Hands a prepared hop to the engine.
    private func begin(_ prepared: PreparedRequest) {
        guard let registry else { return assertionFailure("request \(id) sent a hop before the loop held it") }
        registry.engine.begin(prepared, id: id, receiver: self)
    }

    func observe(_ event: RequestEvent) {
        for observer in observers { observer.observe(event, id: id) }
    }

    /// Reports the outcome: a held failure response goes to the consumer first.
    func complete(_ result: consuming Result<Response, RequestError>, releasing held: RequestStateMachine.HeldResponse?, duration: Duration) {
        if let held, let refusal = release(held) { result = .failure(refusal) }
        if !observers.isEmpty {
            observe(.completed(machine.setup.original, result, attempts: machine.records.count, duration: duration))
        }
        tasks.interceptors?.end()
        guard let registry else { return downstream.onComplete(result) }  // on the caller's thread, before the loop held it
        registry.remove(id)
        self.registry = nil
        registry.complete(downstream.onComplete, with: result)
    }

    /// Gives a held failure response to the body consumer after all: its head, then its body.
    ///
    /// - Returns: The consumer's refusal, if it refused.
    private func release(_ held: RequestStateMachine.HeldResponse) -> RequestError? {
        if let refusal = downstream.onResponseHead?(held.head) { return refusal }
        guard !held.body.isEmpty, let sink = downstream.body else { return nil }
        switch held.body.withUnsafeBytes({ sink.write($0) }) {
        case .accept: return nil
        case .fail(let error): return error
        case .pause:
            // A consumer that has received nothing yet has room for the held bytes (at most
            // `holdLimit`); one that pauses anyway cannot be resumed, as the transfer is over.
            return RequestError(.transportFailure, "the body consumer refused the response body after the transfer ended")
        }
    }
}
