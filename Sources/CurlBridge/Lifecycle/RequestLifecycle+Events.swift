import Foundation

extension RequestLifecycle {
    /// Whether redirects are decided when a head arrives rather than when a transfer completes.
    var decidesAtHead: Bool {
        downstream.onResponseHead != nil || downstream.onBodyChunk != nil || downstream.onProgress != nil
    }

    /// The events each attempt's (and hop's) transfer reports to.
    var attemptEvents: TransferEvents {
        var events = TransferEvents { self.complete($0) }
        // A plain send decides from the complete response; a head, body or progress consumer
        // needs the decision before the body, so that a redirect's or a retried failure's body
        // or progress never reaches it. Monitors only watch heads.
        if decidesAtHead || !monitors.isEmpty {
            events.onResponseHead = { self.receiveHead($0) }
        }
        if downstream.onBodyChunk != nil {
            events.onBodyChunk = { self.receiveChunk($0) }
        }
        if let onProgress = downstream.onProgress {
            events.onProgress = { progress in
                if self.state.withLock({ $0.pendingFollow == nil && $0.held == nil }) { onProgress(progress) }
            }
        }
        return events
    }

    /// The redirect step for `head`; the policy's handler runs outside the lock.
    private func decideRedirect(_ head: ResponseHead) -> RedirectStep {
        guard RedirectStep.isRedirect(head.status.code) else { return .deliver }
        let (request, hops, visited) = state.withLock { state in
            if state.visited.isEmpty, let first = state.first {
                state.visited.insert(RedirectStep.visitKey(first.method, first.url))
            }
            return (state.request, state.hops.count, state.visited)
        }
        return RedirectStep.decide(
            head, request: request, url: head.url, hopsSoFar: hops, visited: visited, policy: redirectPolicy,
            defaultHeaders: environment.defaultHeaders)
    }

    private func receiveHead(_ head: ResponseHead) -> RequestError? {
        if !monitors.isEmpty {
            let (id, attempt) = (self.id, state.withLock { $0.attempt })
            monitors.notify { $0.didReceiveHead(head, id: id, attempt: attempt) }
        }
        guard decidesAtHead else { return nil }
        switch decideRedirect(head) {
        case .deliver:
            if mayRetry(status: head.status.code) {
                state.withLock { $0.held = HeldResponse(head: head) }
                return nil
            }
            return handOver(head)
        case .follow(let next, let hop):
            state.withLock {
                $0.pendingFollow = next
                $0.hops.append(hop)
            }
            notifyRedirect(hop)
            return nil
        case .fail(let error):
            return error
        }
    }

    private func receiveChunk(_ chunk: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        enum Route {
            /// To the consumer, after the held bytes it has not taken yet, if any.
            case consumer(replay: Data?)
            case drain
            case stopDraining
            case held
            case release(HeldResponse)
        }
        let route: Route = state.withLock { state in
            if state.pendingFollow != nil {
                state.drainedBytes += chunk.count
                state.drainAborted = state.drainedBytes > Self.drainLimit
                return state.drainAborted ? .stopDraining : .drain
            }
            guard var held = state.held else { return .consumer(replay: state.replay) }
            guard held.body.count + chunk.count > Self.holdLimit else {
                held.body.append(contentsOf: chunk)
                state.held = held
                return .held
            }
            // Too large to hold for a retry decision: the consumer gets the response after all,
            // and it is not retried.
            state.held = nil
            state.replay = held.body
            return .release(held)
        }
        switch route {
        case .drain, .held:
            return .accept
        case .stopDraining:
            return .fail(RequestError(.cancelled, "stopped draining a redirect body larger than \(Self.drainLimit) bytes"))
        case .release(let held):
            if let refusal = handOver(held.head) { return .fail(refusal) }
            return deliver(chunk, after: held.body)
        case .consumer(let replay):
            return deliver(chunk, after: replay)
        }
    }

    /// Offers the consumer `replay` — held bytes it has not taken yet — if any, then `chunk`.
    private func deliver(_ chunk: UnsafeRawBufferPointer, after replay: Data?) -> BodyChunkVerdict {
        guard let onBodyChunk = downstream.onBodyChunk else { return .accept }
        if let replay {
            let verdict = replay.withUnsafeBytes { onBodyChunk($0) }
            guard case .accept = verdict else { return verdict }
            state.withLock { $0.replay = nil }
        }
        return onBodyChunk(chunk)
    }

    /// Where an attempt's (or hop's) transfer ends.
    func complete(_ result: Result<Response, RequestError>) {
        let (pending, drainAborted) = state.withLock { ($0.pendingFollow, $0.drainAborted) }
        if let pending {
            // Its head decided to follow: whatever happened to the redirect's body, follow —
            // unless the caller cancelled or the transport shut down.
            if case .failure(let error) = result, !drainAborted, error.code == .cancelled || error.code == .transportShutDown {
                attemptEnded(.failure(error))
            } else {
                follow(pending)
            }
            return
        }
        guard case .success(let response) = result, !decidesAtHead, RedirectStep.isRedirect(response.status.code) else {
            attemptEnded(result)
            return
        }
        switch decideRedirect(response.head) {
        case .deliver:
            attemptEnded(result)
        case .follow(let next, let hop):
            state.withLock { $0.hops.append(hop) }
            notifyRedirect(hop)
            follow(next)
        case .fail(let error):
            attemptEnded(.failure(error.with(response: response)))
        }
    }

    private func notifyRedirect(_ hop: RedirectHop) {
        let id = self.id
        monitors.notify { $0.didRedirect(hop, id: id) }
        log?.redirected(hop)
    }

    /// Starts the next hop of the running attempt with what is left of the total timeout.
    private func follow(_ request: Request) {
        guard let next = withTimeLeft(request) else {
            attemptEnded(.failure(RequestError(
                .totalTimedOut, "the total timeout ran out while following redirects", method: request.method, url: request.url)))
            return
        }
        state.withLock { state in
            state.request = next
            state.visited.insert(RedirectStep.visitKey(next.method, next.url))
            state.pendingFollow = nil
            state.drainedBytes = 0
            state.drainAborted = false
        }
        switch next.prepared(with: environment.defaults) {
        case .success(let ready): environment.loop.startNextAttempt(id: id, request: ready, events: attemptEvents)
        case .failure(let problem): attemptEnded(.failure(problem))
        }
    }
}
