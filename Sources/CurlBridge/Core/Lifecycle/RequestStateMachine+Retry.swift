#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RequestStateMachine {
    /// Whether a failure response with `status` could still be retried, so a body consumer must
    /// not see it before the decision: only then is it held.
    func mayRetry(status: Int) -> Bool {
        guard status >= 400, attempt < attemptLimit else { return false }
        let facts = ResendRule.Facts(setup.original)
        if setup.hasRetriers { return ResendRule.denial(.retrierRetry, facts) == nil }
        return setup.retries.retryableStatusCodes.contains(status) && ResendRule.denial(.policyRetry, facts) == nil
    }

    /// Records the running attempt's end with `outcome`.
    ///
    /// - Returns: How long the attempt took.
    mutating func recordAttempt(_ outcome: AttemptRecord.Outcome, at moment: Moment) -> Duration {
        let duration = Duration.nanoseconds(Int64(moment.now &- min(moment.now, attemptStartedAt)))
        let record = AttemptRecord(number: attempt, outcome: outcome, duration: duration)
        // The first record makes the array of one directly, not through `append`'s growth path
        // from an empty array (about 100 instructions more, per request).
        if records.isEmpty { records = [record] } else { records.append(record) }
        return duration
    }

    /// The running attempt ended, its redirects followed: succeed, or decide whether to try again.
    mutating func attemptEnded(_ result: consuming Result<Response, RequestError>, at moment: Moment) -> Actions {
        guard case .running(let hop) = state else { return Actions() }
        var held: HeldResponse?
        if case .holding(let response) = hop.phase { held = response }
        var consumerHasResponse = false
        if case .delivering = hop.phase { consumerHasResponse = true }
        // The record and whether the request ends here are read from the result itself: the
        // outcome the retry decision needs (a copy of the response) is made only when one is.
        let recorded: AttemptRecord.Outcome
        let endsRequest: Bool
        switch result {
        case .success(let response):
            recorded = .response(status: response.status.code)
            endsRequest = response.status.code < 400
        case .failure(let error):
            recorded = .failure(error.code)
            endsRequest = error.code == .cancelled || error.code == .transportShutDown
        }
        let duration = recordAttempt(recorded, at: moment)
        let notice = setup.isObserved ? Actions(.notify(.attemptEnded(attempt: attempt, result, duration: duration))) : Actions()
        if endsRequest { return notice.then(finish(result, release: held, at: moment)) }
        let outcome: AttemptOutcome
        switch result {
        case .success(let response): outcome = .response(response)
        case .failure(let error): outcome = .failure(error)
        }
        if consumerHasResponse {
            let retryable = setup.hasRetriers || RetryStep.isRetryable(outcome, policy: setup.retries)
            return notice.then(deliver(result, release: held, denial: retryable ? .responseDelivered : nil, at: moment))
        }
        let end = AttemptEnd(result: result, outcome: outcome, held: held)
        guard setup.hasRetriers else { return notice.then(applyPolicy(after: end, at: moment)) }
        state = .decidingRetry(end)
        let context = AttemptContext(requestID: setup.id, attempt: attempt, previousAttempts: Array(records.dropLast()))
        return notice.then(Actions(.runRetriers(outcome, attemptRequest, context)).then(armDeadline(at: moment)))
    }

    /// The retriers decided about the attempt that ended.
    mutating func retriersDecided(_ decision: RetryDecision, at moment: Moment) -> Actions {
        guard case .decidingRetry(let end) = state else { return Actions() }
        switch decision {
        case .doNotRetry:
            return applyPolicy(after: end, at: moment)
        case .fail(let error):
            var failure = InterceptorChain.requestError(
                error, code: .retrierFailed, verb: "a retrier failed the request", of: setup.original)
            if case .response(let response) = end.outcome { failure = failure.with(response: response) }
            return finish(.failure(failure), release: nil, at: moment)
        case .retry:
            return retryIfPossible(end, after: .zero, at: moment)
        case .retryAfter(let delay):
            return retryIfPossible(end, after: delay, at: moment)
        }
    }

    /// A retrier's retry: sent unless the attempts are used up, the body cannot be sent again or
    /// the wait would outlast the total timeout.
    private mutating func retryIfPossible(_ end: AttemptEnd, after delay: Duration, at moment: Moment) -> Actions {
        if attempt >= attemptLimit { return deliver(end.result, release: end.held, denial: .attemptsExhausted, at: moment) }
        if let denial = ResendRule.denial(.retrierRetry, ResendRule.Facts(setup.original)) {
            return deliver(end.result, release: end.held, denial: denial.retryDenial, at: moment)
        }
        if let timeLeft = timeLeft(at: moment), delay >= timeLeft {
            return deliver(end.result, release: end.held, denial: .deadline, at: moment)
        }
        return scheduleRetry(after: delay, at: moment)
    }

    /// The ``RetryPolicy``'s decision; a retry it would send asks the transport's budget first.
    private mutating func applyPolicy(after end: AttemptEnd, at moment: Moment) -> Actions {
        let facts = ResendRule.Facts(setup.original)
        let situation = RetryStep.Situation(
            attempt: attempt, isIdempotent: facts.isIdempotent, isRewindable: facts.isRewindable,
            timeLeft: timeLeft(at: moment), jitter: setup.readings.jitter(), now: setup.readings.date())
        switch RetryStep.decide(end.outcome, policy: setup.retries, situation: situation) {
        case .deliver(let denial):
            return deliver(end.result, release: end.held, denial: denial, at: moment)
        case .retry(let delay):
            state = .awaitingBudget(end, delay: delay)
            return Actions(.withdrawRetryFromBudget)
        }
    }

    /// The transport's retry budget answered.
    mutating func budgetAnswered(granted: Bool, at moment: Moment) -> Actions {
        guard case .awaitingBudget(let end, let delay) = state else { return Actions() }
        guard granted else { return deliver(end.result, release: end.held, denial: .budgetExhausted, at: moment) }
        return scheduleRetry(after: delay, at: moment)
    }

    /// Waits `delay` before the next attempt — or ends the request, if the transport is shutting down.
    private mutating func scheduleRetry(after delay: Duration, at moment: Moment) -> Actions {
        records[records.count - 1].retryDelay = delay
        state = .waitingToRetry
        if isShuttingDown {
            let error = RequestError(.transportShutDown, Self.shutDownMessage, method: setup.original.method, url: setup.original.url)
            return finish(.failure(error), release: nil, at: moment)
        }
        let notice = setup.isObserved ? Actions(.notify(.retryScheduled(records[records.count - 1], delay: delay))) : Actions()
        return notice.then(Actions(.wait(delay, .backoff(attempt: attempt))))
    }

    /// Reports `result`, noting on the last attempt why it was not retried.
    private mutating func deliver(
        _ result: Result<Response, RequestError>, release held: HeldResponse?, denial: AttemptRecord.RetryDenial?, at moment: Moment
    ) -> Actions {
        if let denial, !records.isEmpty { records[records.count - 1].retryDenial = denial }
        return finish(result, release: held, at: moment)
    }
}
