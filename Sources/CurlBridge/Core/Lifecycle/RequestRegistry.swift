/// The transport's requests, by id, from the moment their start reaches the loop until their
/// completion: every command for a request — a cancel, a pause, a timer, an interceptor's answer
/// — finds it here, or finds it completed. No command can be lost between attempts: a request
/// waiting, adapting or deciding is held here as surely as one in a transfer.
///
/// The loop's delegate: it holds the engine, tells it what the loop sees, and tells every
/// request when the transport shuts down.
///
/// Confined to the loop, which owns it (as its delegate): other threads reach it through a
/// ``LoopBound`` (``LifecycleEnvironment/registry``), whose work the loop runs with it. Its
/// tables skip run-time exclusivity checks (`@exclusivity(unchecked)`): only the loop's thread
/// touches them, one access at a time, and each request reads them several times.
final class RequestRegistry: RequestLoopDelegate {
    /// What runs the transfers.
    let engine: any TransferEngine
    @exclusivity(unchecked) private var executors = RequestTable<RequestExecutor>()
    /// Whether the transport began shutting down.
    private var isShuttingDown = false
    /// Requests to tell when the current turn ends (see ``BodySink/announcesAtTurnEnd``).
    @exclusivity(unchecked) private var awaitingTurnEnd: [RequestExecutor] = []
    /// The list ``awaitingTurnEnd`` is swapped with while its requests are told, so that neither
    /// list's storage is made again every turn.
    @exclusivity(unchecked) private var toldAtTurnEnd: [RequestExecutor] = []
    /// The first request that completed during the current turn, with its completion; the
    /// others follow in ``completions``, and all are delivered together when it ends
    /// (``deliverCompletions()``). The first has a slot of its own: a sequential caller's turn
    /// finishes one request, which then costs no array's append and clearing.
    @exclusivity(unchecked) private var firstCompletion: Completion?
    /// The requests that completed after ``firstCompletion`` (or while completions were delivered).
    @exclusivity(unchecked) private var completions: [Completion] = []
    /// Whether ``deliverCompletions()`` is running.
    private var isDelivering = false

    /// A request's completion and its outcome, waiting for the end of the turn. A struct, not a
    /// tuple: an array of tuples holds its closure behind a reabstraction thunk, one allocation
    /// per request.
    private struct Completion {
        let handler: @Sendable (consuming Result<Response, RequestError>) -> Void
        /// The outcome, until ``deliverCompletions()`` takes it out to hand it over: moved, where
        /// handing over a stored one copied it (a retain and a release of each of its references).
        var result: Result<Response, RequestError>?
    }

    init(engine: any TransferEngine) {
        self.engine = engine
    }

    /// Request `id`, if it has not completed.
    func executor(_ id: UInt64) -> RequestExecutor? {
        executors[id]
    }

    /// Holds `executor` and starts its first hop, if prepared.
    func run(_ executor: RequestExecutor) {
        executors[executor.id] = executor
        executor.run(in: self)
        if isShuttingDown { executor.shutdown() }
    }

    /// Tells `executor` when the loop's current turn ends.
    func callAtTurnEnd(_ executor: RequestExecutor) {
        awaitingTurnEnd.append(executor)
    }

    /// Lets go of a completed request.
    func remove(_ id: UInt64) {
        executors[id] = nil
    }

    /// Delivers a completed request's `result` to its `handler` when the loop's turn ends, with
    /// every other completion of the turn (curl finishes dozens of transfers in one turn at 64 in
    /// flight). Handed over one at a time between the turn's other work, each woke the caller's
    /// thread — a queue's, a task's — to run one completion and sleep again; together, the first
    /// wakes it and the rest find it running (issue 37: futex calls and context switches per
    /// request). The request has left the registry; its completion is the last thing it does.
    func complete(_ handler: @escaping @Sendable (consuming Result<Response, RequestError>) -> Void, with result: consuming Result<Response, RequestError>) {
        let completion = Completion(handler: handler, result: consume result)
        guard firstCompletion != nil || isDelivering else { return firstCompletion = consume completion }
        completions.append(consume completion)
        // A turn of 1,000 transfers in flight can finish hundreds: their responses are handed over
        // in batches rather than all held until the end.
        if 1 + completions.count == Self.largestBatch { deliverCompletions() }
    }

    /// The most completions held for the end of a turn.
    static let largestBatch = 64

    /// Runs the completions waiting for the turn's end, in the order the requests completed
    /// (and any a completion handler's own work adds meanwhile, read by index as the list grows).
    /// Never nested: a completion a handler adds, even the batch's last, waits for the delivery
    /// under way, which takes it next.
    private func deliverCompletions() {
        guard !isDelivering, var first = firstCompletion.take() else { return }
        isDelivering = true
        first.handler(first.result.take()!)
        var next = 0
        while next < completions.count {
            let result = completions[next].result.take()!
            let handler = completions[next].handler
            next += 1
            handler(result)
        }
        if next > 0 { completions.removeAll(keepingCapacity: true) }
        isDelivering = false
    }

    /// Cancels request `id`, if it has not completed.
    func cancel(_ id: UInt64) {
        executors[id]?.cancel("the request was cancelled")
    }

    /// Cancels every request.
    func cancelAll() {
        for executor in executors.values { executor.cancel("all requests were cancelled") }
    }

    // MARK: RequestLoopDelegate

    var isBusy: Bool { engine.isBusy }

    var isDrained: Bool { executors.isEmpty }

    func turnDidEnd(now: UInt64) -> UInt64? {
        deliverCompletions()
        if !awaitingTurnEnd.isEmpty {
            swap(&toldAtTurnEnd, &awaitingTurnEnd)
            for executor in toldAtTurnEnd { executor.turnDidEnd() }
            toldAtTurnEnd.removeAll(keepingCapacity: true)
        }
        let next = engine.expire(at: now)
        deliverCompletions()  // the requests that expiring ended (an idle timeout): no turn may follow
        return next
    }

    func loopDidFail(_ error: RequestError) {
        engine.failAll(error)
    }

    func shutdownDidBegin() {
        isShuttingDown = true
        for executor in executors.values { executor.shutdown() }
    }

    func loopWillRest() {
        engine.rest(closed: false)
        deliverCompletions()  // any that resting made: every turn ends with its own delivered
    }

    func loopDidClose() {
        engine.rest(closed: true)
        deliverCompletions()
    }
}
