import Dispatch

/// Watches requests go through a transport: for metrics, tracing, debugging tools and tests.
/// Alamofire's `EventMonitor`, smaller. Set on ``Configuration/eventMonitors``.
///
/// Every method has an empty default, so a monitor implements only what it needs. They are
/// called on the monitor's ``queue``, in order for each request, and never hold up the request:
/// the transport hands each event to the queue and goes on. Times and durations are measured by
/// the transport when the event happens, not when the monitor runs.
public protocol EventMonitor: Sendable {
    /// The queue the monitor's methods are called on; a serial queue of its own is best.
    var queue: DispatchQueue { get }

    /// A request was handed to the transport (before adapters run).
    func requestDidStart(_ request: Request, id: UInt64)
    /// An attempt is about to be handed to curl, with the request as adapted for it.
    func attemptDidStart(_ request: Request, id: UInt64, attempt: Int)
    /// A final (non-1xx) response head arrived, including a redirect's.
    func didReceiveHead(_ head: ResponseHead, id: UInt64, attempt: Int)
    /// A redirect is being followed.
    func didRedirect(_ hop: RedirectHop, id: UInt64)
    /// An attempt ended and another will start after `delay`.
    func didScheduleRetry(after attempt: AttemptRecord, delay: Duration, id: UInt64)
    /// The request completed, exactly once: its result carries the attempts, the response's
    /// ``Response/metrics`` the transfer's timings and sizes. `duration` runs from
    /// ``requestDidStart(_:id:)`` to now.
    func requestDidComplete(_ request: Request, id: UInt64, result: Result<Response, RequestError>, duration: Duration)
}

extension EventMonitor {
    /// Does nothing.
    public func requestDidStart(_ request: Request, id: UInt64) {}
    /// Does nothing.
    public func attemptDidStart(_ request: Request, id: UInt64, attempt: Int) {}
    /// Does nothing.
    public func didReceiveHead(_ head: ResponseHead, id: UInt64, attempt: Int) {}
    /// Does nothing.
    public func didRedirect(_ hop: RedirectHop, id: UInt64) {}
    /// Does nothing.
    public func didScheduleRetry(after attempt: AttemptRecord, delay: Duration, id: UInt64) {}
    /// Does nothing.
    public func requestDidComplete(_ request: Request, id: UInt64, result: Result<Response, RequestError>, duration: Duration) {}
}
