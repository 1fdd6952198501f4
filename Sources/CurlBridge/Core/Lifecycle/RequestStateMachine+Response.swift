#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RequestStateMachine {
    /// A failure response's head and the start of its body, held back from a body consumer.
    struct HeldResponse {
        var head: ResponseHead
        var body = Data()
    }

    /// What to do with a final head that arrived.
    enum HeadDecision {
        /// Nothing yet: the decision waits for the complete response, or the response is held.
        case proceed
        /// A redirect will be followed after this hop: perform `notice` (the monitors'
        /// ``RequestEvent/redirected(_:)``, when the request is observed; none otherwise).
        case follow(notice: Actions)
        /// Hand this head (with the attempt's redirects) to the consumer.
        case deliver(ResponseHead)
        /// Stop the transfer with this error.
        case fail(RequestError)
    }

    /// Where a piece of body goes.
    enum BodyRoute {
        /// Into the hop's in-memory body (no consumer takes it).
        case collect
        /// Thrown away (a redirect drained), or kept by the machine (a failure response held).
        case absorb
        /// Stop the transfer with this error (a redirect body too large to drain).
        case stop(RequestError)
        /// To the consumer, after `replay` — held bytes it has not taken yet — if any.
        case consume(replay: Data?)
        /// The held response is too large to hold: hand its head to the consumer, then the held
        /// bytes, then this piece. The response is no longer retried.
        case release(ResponseHead, held: Data)
    }

    /// The running attempt's head arrived (called when the consumer decides at the head, or
    /// monitors watch).
    mutating func receivedHead(_ head: ResponseHead) -> HeadDecision {
        guard setup.consumer.decidesAtHead, case .running(let hop) = state, case .open = hop.phase else { return .proceed }
        switch decideRedirect(head, for: hop) {
        case .deliver:
            if mayRetry(status: head.status.code) {
                setPhase(.holding(HeldResponse(head: head)))
                return .proceed
            }
            setPhase(.delivering(replay: nil))
            return .deliver(handedOver(head))
        case .follow(let next, let redirect):
            setPhase(.draining(next: next, bytes: 0, aborted: false))
            hops.append(redirect)
            return .follow(notice: redirectedNotice(redirect))
        case .fail(let error):
            return .fail(error)
        }
    }

    /// A piece of the running hop's body arrived.
    mutating func receivedBody(_ bytes: UnsafeRawBufferPointer) -> BodyRoute {
        // Without a body consumer every hop's body goes to memory (a redirect's is dropped at the follow).
        if isRunning, !setup.consumer.takesBody { return .collect }
        if isHolding { return hold(bytes) }
        guard case .running(let hop) = state else { return .absorb }
        switch hop.phase {
        case .open:
            return .consume(replay: nil)
        case .delivering(let replay):
            return .consume(replay: replay)
        case .draining(let next, let drained, _):
            let total = drained + bytes.count
            let aborted = total > Self.drainLimit
            setPhase(.draining(next: next, bytes: total, aborted: aborted))
            guard aborted else { return .absorb }
            return .stop(RequestError(.cancelled, "stopped draining a redirect body larger than \(Self.drainLimit) bytes"))
        case .holding:
            return hold(bytes)
        }
    }

    /// Whether a hop is in a transfer.
    private var isRunning: Bool {
        switch state {
        case .plain, .running: true
        default: false
        }
    }

    /// Whether the running hop holds a failure response.
    private var isHolding: Bool {
        guard case .running(let hop) = state, case .holding = hop.phase else { return false }
        return true
    }

    /// A piece of a held failure response's body: held, or — too large to hold for a retry
    /// decision — the response goes to the consumer after all. The hop lets go of the held body
    /// while it grows, so the body has one owner and is not copied.
    private mutating func hold(_ bytes: UnsafeRawBufferPointer) -> BodyRoute {
        let released: HeldResponse?? = changeRunningHop { hop in
            guard case .holding(var held) = hop.phase else { return nil }
            hop.phase = .open
            guard held.body.count + bytes.count > Self.holdLimit else {
                held.body.append(contentsOf: bytes)
                hop.phase = .holding(held)
                return nil
            }
            hop.phase = .delivering(replay: held.body)
            return held
        }
        guard case .some(.some(let held)) = released else { return .absorb }
        return .release(handedOver(held.head), held: held.body)
    }

    /// The consumer took the held bytes it had not taken yet.
    mutating func replayDelivered() {
        guard case .running(let hop) = state, case .delivering = hop.phase else { return }
        setPhase(.delivering(replay: nil))
    }

    /// Gives the running hop `phase`.
    private mutating func setPhase(_ phase: Phase) {
        changeRunningHop { $0.phase = phase }
    }

    /// Whether progress reports reach the consumer now: not while a redirect is drained or a
    /// failure response is held (they would count bytes the consumer never gets).
    var forwardsProgress: Bool {
        guard case .running(let hop) = state else { return true }
        switch hop.phase {
        case .draining, .holding: return false
        case .open, .delivering: return true
        }
    }

    /// The failure of a request its closing HTTP/2 session never answered, and that may not go again.
    private static func lostOnClosingSession(_ error: RequestError, _ denial: ResendRule.Denial) -> RequestError {
        let why = switch denial {
        case .notIdempotent: "the request is not idempotent"
        case .bodyNotRewindable: "its body cannot be read again"
        case .alreadyResent: "it was already sent again once"
        case .responseStarted: "part of a response arrived"
        }
        return RequestError(
            .connectionLost, "the HTTP/2 connection closed (GOAWAY) before answering, and it is not sent again: \(why)",
            method: error.method, url: error.url, curlCode: error.curlCode, curlMessage: error.curlMessage)
    }

    /// `head` with the attempt's redirects, as the consumer gets it.
    private func handedOver(_ head: ResponseHead) -> ResponseHead {
        var head = head
        head.redirects = hops
        return head
    }

    /// The running hop's transfer ended. `closingSession`: curl failed it only because its HTTP/2
    /// session was closing, before any byte of a response: it goes once more if ``ResendRule``
    /// allows, else it fails as the lost connection it is, whatever curl called it.
    mutating func transferEnded(_ result: consuming Result<Response, RequestError>, closingSession: Bool = false, at moment: Moment) -> Actions {
        enterRunningHop()
        guard case .running(let hop) = state else { return Actions() }
        // The one place a transfer's failure is attributed: to the hop it sent.
        let target = hop.target ?? Target(method: hop.request.method, url: hop.request.url)
        if case .failure(let error) = result { result = .failure(error.attributed(to: target.method, url: target.url)) }
        if closingSession, case .open = hop.phase, case .failure(let error) = result {
            let occasion = ResendRule.Occasion.closingSession(responseStarted: false, alreadyResent: hop.resentOnClosingSession)
            guard let denial = ResendRule.denial(occasion, ResendRule.Facts(hop.request)) else {
                changeRunningHop { $0.resentOnClosingSession = true }
                return Actions(.send(hop.request, .resend))
            }
            result = .failure(Self.lostOnClosingSession(error, denial))
        }
        switch hop.phase {
        case .draining(let next, _, let aborted):
            // Its head decided to follow: whatever happened to the redirect's body, follow —
            // unless the request ended meanwhile.
            if case .failure(let error) = result, !aborted, error.code == .cancelled || error.code == .transportShutDown {
                return attemptEnded(result, at: moment)
            }
            return follow(next, at: moment)
        case .holding(let held):
            guard case .success(var response) = result else { return attemptEnded(result, at: moment) }
            if setup.consumer.takesBody { response.body = held.body }
            response.headerFields = held.head.headerFields
            response.status = held.head.status
            return attemptEnded(.success(response), at: moment)
        case .open, .delivering:
            guard case .success(let response) = result, !setup.consumer.decidesAtHead,
                RedirectStep.isRedirect(response.status.code)
            else { return attemptEnded(result, at: moment) }
            switch decideRedirect(response.head, for: hop) {
            case .deliver:
                return attemptEnded(result, at: moment)
            case .follow(let next, let redirect):
                hops.append(redirect)
                return redirectedNotice(redirect).then(follow(next, at: moment))
            case .fail(let error):
                return attemptEnded(.failure(error.with(response: response)), at: moment)
            }
        }
    }

    /// The one place a followed redirect is reported, whether decided at its head or at its end:
    /// the monitors' notice of `redirect`, when the request is observed.
    private func redirectedNotice(_ redirect: RedirectHop) -> Actions {
        setup.isObserved ? Actions(.notify(.redirected(redirect))) : Actions()
    }

    /// The redirect step for `head`, the hop's response.
    private mutating func decideRedirect(_ head: ResponseHead, for hop: Hop) -> RedirectStep {
        guard RedirectStep.isRedirect(head.status.code) else { return .deliver }
        if visited.isEmpty, let first = firstTarget {
            visited.insert(RedirectStep.visitKey(first.method, first.url))
        }
        return RedirectStep.decide(
            head, request: hop.request, url: head.url, hopsSoFar: hops.count, visited: visited,
            policy: setup.redirects, defaultHeaders: setup.defaultHeaders)
    }

    /// Starts the next hop of the running attempt with what is left of the total timeout.
    private mutating func follow(_ next: Request, at moment: Moment) -> Actions {
        guard let next = withTimeLeft(next, at: moment) else {
            return attemptEnded(.failure(RequestError(
                .totalTimedOut, "the total timeout ran out while following redirects", method: next.method, url: next.url)), at: moment)
        }
        visited.insert(RedirectStep.visitKey(next.method, next.url))
        state = .running(Hop(request: next))
        return Actions(.send(next, .hop))
    }
}
