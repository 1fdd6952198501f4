extension RequestStateMachine {
    /// Whether the request needs nothing of the machine between its start and its transfer's end,
    /// unless that end needs a decision: no adapters run before it, nothing observes it, no
    /// consumer takes its head, body or progress (so nothing is decided at the head), and it has
    /// no total timeout to hand down. What most requests are; their start and their ordinary end
    /// (``endPlainly(_:at:)``) skip the hop and the actions of the general path (the attempt is
    /// still recorded), and every other event makes the hop first (``enterRunningHop()``), so it
    /// finds the state the general path would have left.
    var isPlain: Bool {
        !setup.hasAdapters && !setup.isObserved && !setup.consumer.decidesAtHead && setup.deadline == nil
    }

    /// How a plain request starts.
    struct PlainStart {
        /// Whether to count the request against the transport's retry budget, as
        /// ``Action/countRequestInBudget`` does.
        var countsInBudget: Bool
    }

    /// A plain request starts: its first attempt sends the caller's request as it is, which the
    /// executor prepares and reports through ``sending(_:at:)`` or ``sendFailed(_:at:)``, as for
    /// ``Action/send(_:_:)``. `nil`, and nothing changed, when the request is not plain (it starts
    /// with ``start(at:)``) or has already started.
    mutating func startPlainly() -> PlainStart? {
        guard isPlain, case .initial = state else { return nil }
        attempt = 1
        state = .plain
        return PlainStart(countsInBudget: countsInRetryBudget)
    }

    /// How a plain request's transfer ended.
    enum PlainEnd: Equatable {
        /// The request is complete with the response its result now holds (its attempt
        /// recorded), after this long.
        case complete(duration: Duration)
        /// The outcome needs a decision (a failure, a redirect, a status a retry policy may
        /// retry), or the request is not plain: hand the result, as it was, to
        /// ``transferEnded(_:closingSession:at:)``.
        case decide
    }

    /// A plain request's transfer ended with `result`: a response that is neither a redirect nor
    /// a status at or above 400 completes the request here, as the general path would complete it
    /// (one attempt recorded in the response, in place, no redirects); any other outcome is left
    /// as it was, to be decided. The result is changed in place rather than returned, so that the
    /// response is moved, not copied and destroyed.
    mutating func endPlainly(_ result: inout Result<Response, RequestError>, at moment: Moment) -> PlainEnd {
        guard case .plain = state else { return .decide }
        switch consume result {
        case .success(var response):
            let code = response.status.code
            guard code < 400, !RedirectStep.isRedirect(code) else {
                result = .success(response)
                return .decide
            }
            _ = recordAttempt(.response(status: code), at: moment)
            response.attempts = records
            state = .finished
            result = .success(response)
            return .complete(duration: duration(at: moment))
        case let failure:
            result = failure
            return .decide
        }
    }

    /// Makes a plain request's hop, when an event other than its ordinary end needs it: the state
    /// becomes the one the general path leaves once its first hop is sent (``sending(_:at:)``).
    /// Nothing changes in any other state.
    mutating func enterRunningHop() {
        guard case .plain = state else { return }
        state = .running(Hop(request: setup.original, target: firstTarget))
    }
}
