extension LifecycleEnvironment {
    /// Whether `request`'s lifecycle can wait until its first attempt has ended: nothing runs
    /// before that attempt or watches it (no interceptor, monitor or attempt log), and no head,
    /// body or progress consumer needs a redirect or retry decision before the body. Then the
    /// common case — a response that is neither a redirect nor a failure — never pays for a
    /// lifecycle (most of a small request's cost in Swift, measured with `Benchmarks/instructions.sh`).
    func defersLifecycle(_ request: Request, events: TransferEvents) -> Bool {
        adapters.isEmpty && retriers.isEmpty && request.interceptors.isEmpty && monitors.isEmpty
            && !defaults.logging.logsAttempts(of: request)
            && events.onResponseHead == nil && events.onBodyChunk == nil && events.onProgress == nil
    }

    /// The events of a first attempt started without a lifecycle (see ``defersLifecycle(_:events:)``),
    /// reporting to `events`: a response below 400 that is not a redirect completes as the
    /// lifecycle would complete it (with its one ``AttemptRecord``); any other outcome is handed to
    /// a ``RequestLifecycle`` made then, which follows the redirect or decides the retry.
    func deferringEvents(for request: Request, prepared: PreparedRequest, id: UInt64, events: TransferEvents) -> TransferEvents {
        let startedAt = MonotonicClock.now
        if (request.retryPolicy ?? retryPolicy).maximumAttempts > 1 { budget.recordRequest(now: startedAt) }
        return TransferEvents { result in
            if case .success(var response) = result, response.status.code < 400, !RedirectStep.isRedirect(response.status.code) {
                let duration = Duration.nanoseconds(Int64(MonotonicClock.now &- startedAt))
                response.attempts = [AttemptRecord(number: 1, outcome: .response(status: response.status.code), duration: duration)]
                events.onComplete(.success(response))
                return
            }
            RequestLifecycle(request: request, id: id, environment: self, events: events, startedAt: startedAt)
                .adoptFirstAttempt(request, prepared: prepared, ended: result)
        }
    }
}
