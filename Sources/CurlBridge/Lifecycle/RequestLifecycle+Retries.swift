import Foundation

extension RequestLifecycle {
    /// The most attempts this request may make.
    private var attemptLimit: Int {
        retriers.isEmpty ? retryPolicy.maximumAttempts : max(retryPolicy.maximumAttempts, Self.retrierAttemptLimit)
    }

    /// Whether the body, if any, can be sent again.
    private var isRewindable: Bool { original.body?.isRewindable ?? true }

    /// Whether the policy may send the request again: an idempotent method, or a request marked so.
    private var isIdempotent: Bool { original.isIdempotent }

    /// Whether a failure response with `status` could still be retried, so a body consumer must
    /// not see it before the decision: only then is it held.
    func mayRetry(status: Int) -> Bool {
        guard status >= 400, isRewindable else { return false }
        let attempt = state.withLock { $0.attempt }
        guard attempt < attemptLimit else { return false }
        if !retriers.isEmpty { return true }
        return retryPolicy.retryableStatusCodes.contains(status) && isIdempotent
    }

    /// Where an attempt ends, its redirects followed: succeed, or ask whether to try again.
    func attemptEnded(_ result: Result<Response, RequestError>) {
        let held = state.withLock { $0.held }
        let outcome: AttemptOutcome
        switch result {
        case .success(var response):
            if let held {
                response.body = held.body
                response.headerFields = held.head.headerFields
                response.status = held.head.status
            }
            outcome = .response(response)
        case .failure(let error):
            outcome = .failure(error)
        }
        let record = recordAttempt(outcome.recorded)
        log?.attemptEnded(attempt: record.number, outcome: result, duration: record.duration)
        switch outcome {
        case .response(let response) where response.status.code < 400:
            return finish(result)
        case .failure(let error) where error.code == .cancelled || error.code == .transportShutDown:
            return finish(result)
        default:
            break
        }
        if state.withLock({ $0.consumerHasResponse }) {
            let retryable = !retriers.isEmpty || RetryStep.isRetryable(outcome, policy: retryPolicy)
            return deliver(result, denial: retryable ? .responseDelivered : nil)
        }
        guard !retriers.isEmpty else { return applyPolicy(after: outcome, result: result) }
        // The retriers are async: the request waits in the loop (still cancellable, and ended by
        // the total timeout) meanwhile.
        suspendUntilDeadline()
        let (request, previous) = state.withLock { ($0.attemptRequest, Array($0.records.dropLast())) }
        let context = AttemptContext(requestID: id, attempt: record.number, previousAttempts: previous)
        let retriers = self.retriers
        let loop = environment.loop
        let id = self.id
        let task = Task {
            let decision = await InterceptorChain.decide(after: outcome, of: request, with: retriers, context: context)
            loop.submit(.wake(id: id) { self.apply(decision, after: outcome, result: result) })
        }
        keep(task)
    }

    /// Acts on the retriers' decision; with none, the policy decides.
    private func apply(_ decision: RetryDecision, after outcome: AttemptOutcome, result: Result<Response, RequestError>) {
        switch decision {
        case .doNotRetry:
            applyPolicy(after: outcome, result: result)
        case .fail(let error):
            var failure = InterceptorChain.requestError(error, code: .retrierFailed, verb: "a retrier failed the request", of: original)
            if case .response(let response) = outcome { failure = failure.with(response: response) }
            finish(.failure(failure))
        case .retry:
            retryIfPossible(after: .zero, result: result)
        case .retryAfter(let delay):
            retryIfPossible(after: delay, result: result)
        }
    }

    /// A retrier's retry: sent unless the attempts are used up, the body cannot be sent twice
    /// or the wait would outlast the total timeout.
    private func retryIfPossible(after delay: Duration, result: Result<Response, RequestError>) {
        let attempt = state.withLock { $0.attempt }
        if attempt >= attemptLimit { return deliver(result, denial: .attemptsExhausted) }
        if !isRewindable { return deliver(result, denial: .bodyNotRewindable) }
        if let timeLeft, delay >= timeLeft { return deliver(result, denial: .deadline) }
        scheduleRetry(after: delay)
    }

    /// The ``RetryPolicy``'s decision, then the budget's.
    private func applyPolicy(after outcome: AttemptOutcome, result: Result<Response, RequestError>) {
        let situation = RetryStep.Situation(
            attempt: state.withLock { $0.attempt },
            isIdempotent: isIdempotent,
            isRewindable: isRewindable, timeLeft: timeLeft, jitter: Double.random(in: 0..<1), now: Date())
        switch RetryStep.decide(outcome, policy: retryPolicy, situation: situation) {
        case .deliver(let denial):
            deliver(result, denial: denial)
        case .retry(let delay):
            guard environment.budget.withdrawRetry(now: MonotonicClock.now) else {
                return deliver(result, denial: .budgetExhausted)
            }
            scheduleRetry(after: delay)
        }
    }

    /// Reports `result`, noting on the last attempt why it was not retried.
    private func deliver(_ result: Result<Response, RequestError>, denial: AttemptRecord.RetryDenial?) {
        if let denial {
            state.withLock { state in
                guard !state.records.isEmpty else { return }
                state.records[state.records.count - 1].retryDenial = denial
            }
        }
        finish(result)
    }

    /// Waits `delay` on a timer (no thread held), the request suspended in the loop, then starts
    /// the next attempt.
    private func scheduleRetry(after delay: Duration) {
        let record = state.withLock { state -> AttemptRecord in
            state.records[state.records.count - 1].retryDelay = delay
            return state.records[state.records.count - 1]
        }
        let id = self.id
        monitors.notify { $0.didScheduleRetry(after: record, delay: delay, id: id) }
        log?.retryScheduled(after: record, delay: delay)
        environment.loop.suspend(id: id, waitingRequest)
        wake(after: delay) { $0.startNextAttempt() }
    }
}

extension AttemptOutcome {
    /// The outcome as an ``AttemptRecord`` keeps it.
    var recorded: AttemptRecord.Outcome {
        switch self {
        case .response(let response): .response(status: response.status.code)
        case .failure(let error): .failure(error.code)
        }
    }
}
