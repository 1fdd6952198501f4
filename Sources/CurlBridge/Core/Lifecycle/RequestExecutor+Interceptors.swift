import Dispatch

extension RequestExecutor {
    /// Runs the adapters in a task; their answer comes back to the loop.
    func runAdapters(_ request: Request, _ context: AttemptContext) {
        let (adapters, registry, id) = (self.adapters, environment.registry, self.id)
        interceptors?.keep(Task {
            let adapted = await InterceptorChain.adapt(request, with: adapters, context: context)
            registry.submit { registry.executor(id)?.adapted(adapted) }
        })
    }

    /// Asks the retriers in a task; their decision comes back to the loop.
    func runRetriers(after outcome: AttemptOutcome, of request: Request, _ context: AttemptContext) {
        let (retriers, registry, id) = (self.retriers, environment.registry, self.id)
        interceptors?.keep(Task {
            let decision = await InterceptorChain.decide(after: outcome, of: request, with: retriers, context: context)
            registry.submit { registry.executor(id)?.retriersDecided(decision) }
        })
    }

    /// Reports `timer` to the loop after `delay`. The timer runs on a global queue, not the
    /// loop's: while transfers are in flight the loop's queue runs the loop without a break. It
    /// holds the registry weakly and the request not at all: a request that ended meanwhile is no
    /// longer found, and its timer does nothing.
    ///
    /// It waits one tick of ``MonotonicClock`` longer than `delay`: the library times requests with
    /// that coarse clock, which may lag the timer's precise one by a tick, and a `Retry-After`
    /// must not look shorter than asked in the library's own figures (it once read 0.99999999 s).
    func arm(_ timer: RequestStateMachine.Timer, after delay: Duration) {
        let (id, nanoseconds) = (self.id, delay.timerNanoseconds + Int(MonotonicClock.resolution))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak registry = environment.registry] in
            guard let registry else { return }
            registry.submit { registry.executor(id)?.timerFired(timer) }
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
