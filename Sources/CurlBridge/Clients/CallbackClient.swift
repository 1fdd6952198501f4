import Dispatch
import Synchronization

/// Sends requests and reports each outcome to a completion handler: for code written in the
/// NSURLSession / AFNetworking style.
///
/// The completion handler runs exactly once, always asynchronously (never inside `send`), on the
/// queue chosen for the call, else the client's completion queue.
///
/// ```swift
/// let task = client.send(.get("feed")) { result in
///     switch result { case .success(let response): …; case .failure(let error): … }
/// }
/// task.cancel()
/// ```
public final class CallbackClient: Sendable {
    /// The transport requests go through.
    public let transport: Transport
    /// Where completion handlers run unless a call names another queue.
    public let completionQueue: DispatchQueue
    /// Completions handed to their queue and not run yet: while any wait, a request sent from a
    /// completion handler is one of a burst (see ``send(_:queue:progress:completion:)``). An object
    /// of its own, so that a request's completion holds the count and not the client, whose
    /// transport must be free to shut down when the program lets go of it.
    let undelivered = DeliveryCount()

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - transport: The transport to send through.
    ///   - completionQueue: Where completion handlers run by default; a serial queue of the
    ///     client's own unless given. Not the main queue by default: a Linux command-line program
    ///     may never drain it.
    public init(transport: Transport, completionQueue: DispatchQueue? = nil) {
        self.transport = transport
        self.completionQueue = completionQueue ?? DispatchQueue(label: "CurlBridge.CallbackClient")
    }

    /// Sends `request`; `completion` receives the response or the error, exactly once.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - queue: Where `progress` and `completion` run; the client's ``completionQueue`` when `nil`.
    ///   - progress: Called with upload and download progress (see ``TransferProgress``), the
    ///     final report before `completion`; `nil` by default.
    ///   - completion: Receives the outcome. A cancelled request reports ``RequestError/Code/cancelled``.
    /// - Returns: A task that can cancel the request.
    @discardableResult
    public func send(
        _ request: Request,
        queue: DispatchQueue? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<Response, RequestError>) -> Void
    ) -> CallbackTask {
        let queue = queue ?? completionQueue
        let delivery = Delivery(completion, on: queue, counting: undelivered)
        var events = TransferEvents { delivery.deliver($0) }
        events.onProgress = progress.map { ProgressDelivery($0, on: queue).handler }
        // The calling thread starts the transfer itself when the transport is idle, without
        // waiting for anything (see Transport.startSending): a completion handler that sends the
        // next request puts it on the wire at once. Not while other completions wait for their
        // queue: a burst of them (HTTP/2 answers 64 streams in one turn) would have each handler
        // run the loop's turn for its one request on the completion queue while the rest wait,
        // and the loop go idle between them; the transport's queue sends them together instead.
        // Only who runs the first turn depends on the count, never what is sent or in which order.
        let handle = undelivered.count.load(ordering: .relaxed) == 0
            ? transport.startSending(request, events: events) { _ in }
            : transport.start(request, events: events)
        return CallbackTask(handle: handle)
    }
}

/// How many of a ``CallbackClient``'s completions wait for their queue.
final class DeliveryCount: Sendable {
    let count = Atomic<Int>(0)
}

/// One request's completion on its way to the caller's queue: the handler, its queue, the
/// client's count, and the outcome once the loop has it. The events' completion and the work
/// queued for the handler each capture this one object, so neither needs a closure context of
/// its own (one allocation per request, where a closure holding the three and another holding
/// the outcome made two).
///
/// `@unchecked Sendable`: ``result`` is written once — on the loop, or on the calling thread when
/// the request fails before it reaches the loop — before the work is queued, and read once by
/// that work; the queue orders the two. A request completes exactly once, which `deliver` checks.
private final class Delivery: @unchecked Sendable {
    private let completion: @Sendable (Result<Response, RequestError>) -> Void
    private let queue: DispatchQueue
    private let undelivered: DeliveryCount
    private var result: Result<Response, RequestError>?

    init(
        _ completion: @escaping @Sendable (Result<Response, RequestError>) -> Void, on queue: DispatchQueue,
        counting undelivered: DeliveryCount
    ) {
        self.completion = completion
        self.queue = queue
        self.undelivered = undelivered
    }

    /// The request completed with `result` (exactly once): queues the handler.
    func deliver(_ result: consuming Result<Response, RequestError>) {
        assert(self.result == nil, "a CallbackClient request completed twice")
        self.result = consume result
        undelivered.count.add(1, ordering: .relaxed)
        queue.async { self.run() }
    }

    /// Runs the handler, on its queue.
    private func run() {
        undelivered.count.subtract(1, ordering: .relaxed)
        completion(result.take().unsafelyUnwrapped)
    }
}

/// A request started by a ``CallbackClient``, which can be cancelled from any thread.
public struct CallbackTask: Sendable {
    let handle: TransferHandle?

    /// Cancels the request. Its completion handler still runs exactly once: with
    /// ``RequestError/Code/cancelled``, or with the outcome if it had already finished.
    public func cancel() {
        handle?.cancel()
    }
}
