import HTTPTypes
import Synchronization

/// One send, across all its attempts: follows redirects by starting one transfer per hop under
/// the same transfer id (so the caller's handle cancels whichever hop is running), and reports to
/// the caller's events as if there had been one transfer — the final head, the final body, one
/// outcome carrying the hops.
///
/// The decisions are ``RedirectStep`` values; this type only wires them to the events. Every event
/// arrives on the transport's queue; the state sits behind a mutex because the events are
/// `Sendable` closures.
final class RequestLifecycle: Sendable {
    private struct State {
        /// The request the running hop sent.
        var request: Request
        /// Redirects followed so far.
        var hops: [RedirectHop] = []
        /// The first request's method and absolute URL.
        let first: (method: HTTPRequest.Method, url: String)
        /// `"METHOD URL"` of every request sent, for loop detection; filled at the first redirect,
        /// so that a response that is not one costs nothing here.
        var visited: Set<String> = []
        /// The next request, once the running hop's head decided to follow it.
        var pendingFollow: Request?
        /// Body bytes of the running hop's redirect response thrown away so far.
        var drainedBytes = 0
        /// Whether the running hop was stopped because its redirect body was too large to drain.
        var drainAborted = false
    }

    /// A redirect body larger than this is not drained: the hop is stopped (closing its
    /// connection) and the redirect followed anyway.
    static let drainLimit = 1 << 20

    private let state: Mutex<State>
    private let policy: RedirectPolicy
    /// When the total timeout runs out for the whole chain (`MonotonicClock` nanoseconds), if it has one.
    private let deadline: UInt64?
    private let defaultHeaders: HTTPFields
    private let downstream: TransferEvents
    private let startNext: @Sendable (Request, TransferEvents) -> Void

    /// Creates the lifecycle of `request`, already prepared as `prepared`.
    ///
    /// - Parameters:
    ///   - startNext: Starts a follow-up request with the given events, from inside the previous
    ///     hop's completion; reports a request that cannot start through the events' `onComplete`.
    init(
        request: Request, prepared: PreparedRequest, policy: RedirectPolicy, defaultHeaders: HTTPFields,
        events: TransferEvents, startNext: @escaping @Sendable (Request, TransferEvents) -> Void
    ) {
        state = Mutex(State(request: request, first: (prepared.method, prepared.url)))
        self.policy = policy
        deadline = prepared.totalTimeoutMilliseconds.map { MonotonicClock.now &+ UInt64($0) * 1_000_000 }
        self.defaultHeaders = defaultHeaders
        downstream = events
        self.startNext = startNext
    }

    /// Whether redirects are decided when a head arrives rather than when a transfer completes.
    private var decidesAtHead: Bool {
        downstream.onResponseHead != nil || downstream.onBodyChunk != nil || downstream.onProgress != nil
    }

    /// The events each hop's transfer reports to.
    var events: TransferEvents {
        var events = TransferEvents { self.complete($0) }
        // A plain send decides from the complete response; a head, body or progress consumer
        // needs the decision before the body, so that a redirect's body or progress never
        // reaches it.
        if decidesAtHead {
            events.onResponseHead = { self.receiveHead($0) }
        }
        if downstream.onBodyChunk != nil {
            events.onBodyChunk = { self.receiveChunk($0) }
        }
        if let onProgress = downstream.onProgress {
            events.onProgress = { progress in
                if self.state.withLock({ $0.pendingFollow == nil }) { onProgress(progress) }
            }
        }
        return events
    }

    /// The step for `head`; the policy's handler runs outside the lock.
    private func decide(_ head: ResponseHead) -> RedirectStep {
        guard RedirectStep.isRedirect(head.status.code) else { return .deliver }
        let (request, hops, visited) = state.withLock { state in
            if state.visited.isEmpty { state.visited.insert(RedirectStep.visitKey(state.first.method, state.first.url)) }
            return (state.request, state.hops.count, state.visited)
        }
        return RedirectStep.decide(
            head, request: request, url: head.url, hopsSoFar: hops, visited: visited, policy: policy,
            defaultHeaders: defaultHeaders)
    }

    private func receiveHead(_ head: ResponseHead) -> RequestError? {
        switch decide(head) {
        case .deliver:
            var head = head
            head.redirects = state.withLock { $0.hops }
            return downstream.onResponseHead?(head)
        case .follow(let next, let hop):
            state.withLock {
                $0.pendingFollow = next
                $0.hops.append(hop)
            }
            return nil
        case .fail(let error):
            return error
        }
    }

    private func receiveChunk(_ chunk: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        let draining: Bool? = state.withLock { state in
            guard state.pendingFollow != nil else { return nil }
            state.drainedBytes += chunk.count
            state.drainAborted = state.drainedBytes > Self.drainLimit
            return !state.drainAborted
        }
        switch draining {
        case nil: return downstream.onBodyChunk?(chunk) ?? .accept
        case true?: return .accept
        case false?:
            return .fail(RequestError(.cancelled, "stopped draining a redirect body larger than \(Self.drainLimit) bytes"))
        }
    }

    private func complete(_ result: Result<Response, RequestError>) {
        let (pending, drainAborted) = state.withLock { ($0.pendingFollow, $0.drainAborted) }
        if let pending {
            // Its head decided to follow: whatever happened to the redirect's body, follow —
            // unless the caller cancelled or the transport shut down.
            if case .failure(let error) = result, !drainAborted, error.code == .cancelled || error.code == .transportShutDown {
                downstream.onComplete(.failure(error))
            } else {
                follow(pending)
            }
            return
        }
        guard case .success(let response) = result, !decidesAtHead,
            RedirectStep.isRedirect(response.status.code)
        else {
            deliver(result)
            return
        }
        switch decide(response.head) {
        case .deliver:
            deliver(result)
        case .follow(let next, let hop):
            state.withLock { $0.hops.append(hop) }
            follow(next)
        case .fail(let error):
            downstream.onComplete(.failure(error.with(response: response)))
        }
    }

    /// Reports the final outcome, with the hops that led to it.
    private func deliver(_ result: Result<Response, RequestError>) {
        let hops = state.withLock { $0.hops }
        guard !hops.isEmpty else { return downstream.onComplete(result) }
        downstream.onComplete(result.map { response in
            var response = response
            response.redirects = hops
            response.metrics.redirectCount = hops.count
            return response
        })
    }

    /// Starts the next hop with what is left of the total timeout.
    private func follow(_ request: Request) {
        var next = request
        if let deadline {
            let now = MonotonicClock.now
            guard now < deadline else {
                downstream.onComplete(.failure(RequestError(
                    .totalTimedOut, "the total timeout ran out while following redirects", method: next.method, url: next.url)))
                return
            }
            next.timeouts.total = .nanoseconds(Int64(deadline - now))
        }
        state.withLock { state in
            state.request = next
            state.visited.insert(RedirectStep.visitKey(next.method, next.url))
            state.pendingFollow = nil
            state.drainedBytes = 0
            state.drainAborted = false
        }
        startNext(next, events)
    }
}
