import Dispatch

/// What a request runs off the loop — its interceptors' tasks and its timers — and what they need
/// of it: its number, its interceptors, the way back to the loop. Any thread may hold it: the
/// request's ``RequestExecutor`` (the loop's) keeps it, and the caller's thread launches the
/// first adapters and the deadline with it after handing the executor to the loop
/// (``RequestExecutor/Launch``).
struct RequestTasks: Sendable {
    let id: UInt64
    /// What the transport gives every request; its registry is where answers go back.
    let environment: LifecycleEnvironment
    /// Client-wide adapters first, then the request's own.
    let adapters: [any RequestAdapter]
    /// The request's own retriers first, then the client-wide ones.
    let retriers: [any RequestRetrier]
    /// The task running adapters or retriers, cancelled if the request ends first; `nil` for a
    /// request that has none (most: no lock to make for them).
    let interceptors: InterceptorTask?

    /// Runs the adapters in a task; their answer comes back to the loop.
    func runAdapters(_ request: Request, _ context: AttemptContext) {
        let (adapters, registry, id) = (adapters, environment.registry, id)
        interceptors?.keep(Task {
            let adapted = await InterceptorChain.adapt(request, with: adapters, context: context)
            registry.submit { $0.executor(id)?.adapted(adapted) }
        })
    }

    /// Asks the retriers in a task; their decision comes back to the loop.
    func runRetriers(after outcome: AttemptOutcome, of request: Request, _ context: AttemptContext) {
        let (retriers, registry, id) = (retriers, environment.registry, id)
        interceptors?.keep(Task {
            let decision = await InterceptorChain.decide(after: outcome, of: request, with: retriers, context: context)
            registry.submit { $0.executor(id)?.retriersDecided(decision) }
        })
    }

    /// Reports `timer` to the loop after `delay`. The timer runs on a global queue, not the
    /// loop's: while transfers are in flight the loop's queue runs the loop without a break. It
    /// holds the request not at all, only the registry (as the request's tasks and handle do): a
    /// request that ended meanwhile is no longer found, and its timer does nothing; a closed loop
    /// refuses the work.
    ///
    /// It waits one tick of ``MonotonicClock`` longer than `delay`: the library times requests with
    /// that coarse clock, which may lag the timer's precise one by a tick, and a `Retry-After`
    /// must not look shorter than asked in the library's own figures (it once read 0.99999999 s).
    func arm(_ timer: RequestStateMachine.Timer, after delay: Duration) {
        let (id, registry, nanoseconds) = (id, environment.registry, delay.timerNanoseconds + Int(MonotonicClock.resolution))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            registry.submit { $0.executor(id)?.timerFired(timer) }
        }
    }
}

/// The task running a request's adapters or retriers, if any: ending the request cancels it,
/// and a cancel that comes before the task is kept cancels it as soon as it is.
final class InterceptorTask: Sendable {
    private let state = PosixLock(CancelWhenAttached<Task<Void, Never>>())

    /// Keeps `task`, cancelling it at once if the request already ended.
    func keep(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { state in
            let cancelNow = state.attach(task)
            if cancelNow != nil { _ = state.detach() }
            return cancelNow
        }
        cancelNow?.cancel()
    }

    /// Cancels the kept task, if any.
    func cancel() {
        state.withLock { $0.detach() }?.cancel()
    }

    /// Marks the request ended: the kept task is cancelled, and a task kept later at once.
    func end() {
        state.withLock { state in
            defer { _ = state.detach() }
            return state.cancel()
        }?.cancel()
    }
}
