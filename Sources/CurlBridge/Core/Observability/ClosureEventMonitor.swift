import Dispatch

/// An ``EventMonitor`` made of closures, for quick use. Alamofire's `ClosureEventMonitor`.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.eventMonitors = [ClosureEventMonitor(requestDidComplete: { request, _, result, duration in
///     print(request.method, request.url, (try? result.get())?.status.code ?? 0, duration)
/// })]
/// ```
public struct ClosureEventMonitor: EventMonitor {
    /// Where the closures run.
    public let queue: DispatchQueue
    private let onRequestStart: (@Sendable (Request, UInt64) -> Void)?
    private let onAttemptStart: (@Sendable (Request, UInt64, Int) -> Void)?
    private let onHead: (@Sendable (ResponseHead, UInt64, Int) -> Void)?
    private let onRedirect: (@Sendable (RedirectHop, UInt64) -> Void)?
    private let onRetry: (@Sendable (AttemptRecord, Duration, UInt64) -> Void)?
    private let onComplete: (@Sendable (Request, UInt64, Result<Response, RequestError>, Duration) -> Void)?

    /// Creates a monitor; each closure receives its method's arguments in order. Every closure is
    /// `nil` (the event is ignored) by default.
    ///
    /// - Parameters:
    ///   - queue: Where the closures run; a new serial queue by default.
    ///   - requestDidStart: ``EventMonitor/requestDidStart(_:id:)``: the request and its id.
    ///   - attemptDidStart: ``EventMonitor/attemptDidStart(_:id:attempt:)``: the request as adapted
    ///     for the attempt, its id and the attempt's number.
    ///   - didReceiveHead: ``EventMonitor/didReceiveHead(_:id:attempt:)``: a response head, the
    ///     request's id and the attempt's number.
    ///   - didRedirect: ``EventMonitor/didRedirect(_:id:)``: the hop and the request's id.
    ///   - didScheduleRetry: ``EventMonitor/didScheduleRetry(after:delay:id:)``: the attempt that
    ///     will be retried, the wait before the next one and the request's id.
    ///   - requestDidComplete: ``EventMonitor/requestDidComplete(_:id:result:duration:)``: the
    ///     request, its id, its outcome and how long it took.
    public init(
        queue: DispatchQueue = DispatchQueue(label: "CurlBridge.ClosureEventMonitor"),
        requestDidStart: (@Sendable (Request, UInt64) -> Void)? = nil,
        attemptDidStart: (@Sendable (Request, UInt64, Int) -> Void)? = nil,
        didReceiveHead: (@Sendable (ResponseHead, UInt64, Int) -> Void)? = nil,
        didRedirect: (@Sendable (RedirectHop, UInt64) -> Void)? = nil,
        didScheduleRetry: (@Sendable (AttemptRecord, Duration, UInt64) -> Void)? = nil,
        requestDidComplete: (@Sendable (Request, UInt64, Result<Response, RequestError>, Duration) -> Void)? = nil
    ) {
        self.queue = queue
        onRequestStart = requestDidStart
        onAttemptStart = attemptDidStart
        onHead = didReceiveHead
        onRedirect = didRedirect
        onRetry = didScheduleRetry
        onComplete = requestDidComplete
    }

    /// Calls its closure.
    public func requestDidStart(_ request: Request, id: UInt64) { onRequestStart?(request, id) }
    /// Calls its closure.
    public func attemptDidStart(_ request: Request, id: UInt64, attempt: Int) { onAttemptStart?(request, id, attempt) }
    /// Calls its closure.
    public func didReceiveHead(_ head: ResponseHead, id: UInt64, attempt: Int) { onHead?(head, id, attempt) }
    /// Calls its closure.
    public func didRedirect(_ hop: RedirectHop, id: UInt64) { onRedirect?(hop, id) }
    /// Calls its closure.
    public func didScheduleRetry(after attempt: AttemptRecord, delay: Duration, id: UInt64) { onRetry?(attempt, delay, id) }
    /// Calls its closure.
    public func requestDidComplete(_ request: Request, id: UInt64, result: Result<Response, RequestError>, duration: Duration) {
        onComplete?(request, id, result, duration)
    }
}
