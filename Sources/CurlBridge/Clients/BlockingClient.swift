import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends requests and waits for the response: for worker threads, scripts and command-line tools.
///
/// A blocking call freezes whatever thread makes it, so the client refuses — by throwing
/// ``RequestError/Code/blockingRefused`` before sending anything — when called:
/// - on the main thread or the main queue (also on Linux after `dispatchMain()`, where main-queue
///   work runs off the main thread), unless ``Policy/allowsMainThread``;
/// - inside a Swift concurrency task, where it would starve the cooperative pool, unless
///   ``Policy/allowsInsideTasks``;
/// - on a transport's own queue, where it would deadlock: never allowed.
///
/// ```swift
/// Thread.detachNewThread {
///     let user = try client.send(.get("users/42")).validate().decode(User.self)
/// }
/// ```
public final class BlockingClient: Sendable {
    /// Which of the refused contexts a client allows anyway.
    public struct Policy: Sendable, Hashable {
        /// Allow blocking the main thread and main queue; `false` by default. For command-line
        /// programs with no UI and no run loop to freeze.
        public var allowsMainThread: Bool
        /// Allow blocking inside a Swift concurrency task; `false` by default.
        public var allowsInsideTasks: Bool

        /// Creates a policy; refuses both contexts by default.
        public init(allowsMainThread: Bool = false, allowsInsideTasks: Bool = false) {
            self.allowsMainThread = allowsMainThread
            self.allowsInsideTasks = allowsInsideTasks
        }

        /// Why a blocking wait on the current thread is refused under this policy, or `nil` when
        /// it may wait: what every blocking call of CurlBridge checks first (and then throws
        /// ``RequestError/Code/blockingRefused`` with this reason). For a program's own blocking
        /// waits on CurlBridge work. A transport's own queue is always refused: a wait there
        /// would deadlock.
        public func refusal() -> String? {
            BlockingGuard.refusal(self)
        }
    }

    /// The transport requests go through.
    public let transport: Transport
    /// The contexts this client allows blocking in.
    public let policy: Policy

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - transport: The transport to send through.
    ///   - policy: Contexts to allow blocking in anyway; none by default.
    public init(transport: Transport, policy: Policy = Policy()) {
        self.transport = transport
        self.policy = policy
    }

    /// Sends `request` and waits for its response.
    ///
    /// The wait is bounded by the request's total timeout plus a two-second margin; if that
    /// passes, the transfer is cancelled and ``RequestError/Code/totalTimedOut`` is thrown.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - cancellation: Cancels the request from another thread; `nil` by default.
    ///   - progress: Called with upload and download progress (see ``TransferProgress``) on a
    ///     serial queue of its own, the final report before this returns; `nil` by default.
    /// - Throws: ``RequestError``: ``RequestError/Code/blockingRefused`` on an unsafe thread, or
    ///   any failure of the request.
    @available(*, noasync, message: "blocking calls starve Swift concurrency; use AsyncClient")
    public func send(
        _ request: Request, cancellation: TransferCanceller? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) throws(RequestError) -> Response {
        try checkThread(request)
        let delivery = progress.map { ProgressDelivery($0) }
        defer { delivery?.queue.sync {} }  // the final report runs before the caller goes on
        return try wait(for: request, cancellation: cancellation) { onComplete in
            var events = TransferEvents(onComplete: onComplete)
            events.onProgress = delivery?.handler
            return events
        }.get()
    }

    /// Throws ``RequestError/Code/blockingRefused`` when this thread must not block.
    func checkThread(_ request: Request) throws(RequestError) {
        if let refusal = BlockingGuard.refusal(policy) {
            throw RequestError(.blockingRefused, refusal, method: request.method, url: request.url)
        }
    }

    /// Starts `request` with the events `makeEvents` builds around the completion, and waits for
    /// the outcome. When the transport is idle this thread drives curl itself until the outcome is
    /// in; otherwise it waits for the thread that does.
    ///
    /// The wait is bounded by the request's total timeout plus two seconds, after which the
    /// transfer is cancelled and the result is ``RequestError/Code/totalTimedOut``.
    func wait(
        for request: Request,
        cancellation: TransferCanceller? = nil,
        events makeEvents: (@escaping @Sendable (consuming Result<Response, RequestError>) -> Void) -> TransferEvents
    ) -> Result<Response, RequestError> {
        let outcome = Outcome()
        // The completion captures the outcome alone (one reference: no context of its own); the
        // other closures do not escape.
        let handle = transport.startDriving(
            request, events: makeEvents { outcome.deliver($0) }, onStart: { cancellation?.link.attach($0) },
            until: { outcome.isIn })
        // A thread that drove its request to the end finds the result at once, with no deadline to
        // work out and nothing to sleep on.
        if let result = outcome.takeResult(waitingUntil: nil) { return result }
        let total = transport.configuration.timeouts.overridden(by: request.timeouts).total
        let deadline = total.map { DispatchTime.now() + .milliseconds(($0 + .seconds(2)).roundedUpMilliseconds) } ?? .distantFuture
        if let result = outcome.takeResult(waitingUntil: deadline) { return result }
        handle?.cancel()
        _ = outcome.takeResult(waitingUntil: .distantFuture)  // the cancelled transfer still completes, exactly once
        return .failure(RequestError(
            .totalTimedOut, "no response within the total timeout plus a margin", method: request.method, url: request.url))
    }

    /// Where the transport's loop leaves the result for the waiting thread: one allocation per
    /// call, the lock's. A thread that drives its request to the end finds the result there; only
    /// a thread that must sleep (another thread drives the loop) makes a semaphore to sleep on.
    private struct Outcome: Sendable {
        /// The result, once in, and the semaphore of a thread sleeping until it is.
        private struct State {
            var result: Result<Response, RequestError>?
            var sleeper: DispatchSemaphore?
            /// Whether the result was delivered: it stays true once the waiting thread takes it.
            var isDelivered = false
        }

        private let state = PosixLock(State())

        /// The transfer completed with `result` (on the loop's owner, exactly once), moved in.
        func deliver(_ result: consuming Result<Response, RequestError>) {
            var delivered = Optional(result)
            let sleeper = state.withLock { state in
                state.result = delivered.take()
                state.isDelivered = true
                return state.sleeper
            }
            sleeper?.signal()
        }

        /// Whether the result was delivered (taken or not).
        var isIn: Bool {
            state.withLock { $0.isDelivered }
        }

        /// Takes the result out — moved, not copied — at once if it is in, else — given a
        /// `deadline` — once it is, unless the deadline passes first (then `nil`). A call that
        /// returns it leaves none for the next.
        func takeResult(waitingUntil deadline: DispatchTime?) -> Result<Response, RequestError>? {
            var taken: Result<Response, RequestError>?
            let sleeper: DispatchSemaphore? = state.withLock { state in
                if case .some = state.result {
                    taken = state.result.take()  // in already: taken under the same lock
                    return nil
                }
                guard deadline != nil else { return nil }
                if state.sleeper == nil { state.sleeper = DispatchSemaphore(value: 0) }
                return state.sleeper
            }
            if case .some = taken { return taken }
            guard let sleeper, let deadline, sleeper.wait(timeout: deadline) != .timedOut else { return nil }
            return state.withLock { $0.result.take() }
        }
    }
}

/// Cancels a blocking call from another thread: pass one to ``BlockingClient/send(_:cancellation:progress:)``,
/// ``BlockingClient/download(_:to:resumingFrom:options:cancellation:progress:)`` or
/// ``BlockingClient/upload(_:fromFile:contentType:cancellation:progress:)`` and call ``cancel()``
/// while it waits. The call throws ``RequestError/Code/cancelled``; a cancelled download's error
/// carries ``RequestError/resumeData`` when its options ask for it and it can be resumed.
public final class TransferCanceller: Sendable {
    let link = CancellationLink()

    /// Creates a canceller, not yet attached to any transfer.
    public init() {}

    /// Cancels the transfer now, or as soon as it starts.
    public func cancel() {
        link.cancel()
    }
}
