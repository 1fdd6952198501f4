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
        if !awaitingTurnEnd.isEmpty {
            swap(&toldAtTurnEnd, &awaitingTurnEnd)
            for executor in toldAtTurnEnd { executor.turnDidEnd() }
            toldAtTurnEnd.removeAll(keepingCapacity: true)
        }
        return engine.expire(at: now)
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
    }

    func loopDidClose() {
        engine.rest(closed: true)
    }
}
