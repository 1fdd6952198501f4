/// Something that happened to a request, as its observers — the event monitors and its debug
/// log — learn it: one channel, fed by the request's executor (most events are the state
/// machine's `notify` actions; the head and the completion come with what the executor does).
enum RequestEvent: Sendable {
    /// The request started (the request as the caller made it).
    case started(Request)
    /// An attempt is handed to a transfer: the request as adapted, its number, its absolute URL.
    case attemptStarted(Request, attempt: Int, url: String)
    /// A final head arrived during attempt `attempt`.
    case receivedHead(ResponseHead, attempt: Int)
    /// An attempt ended, its redirects followed.
    case attemptEnded(attempt: Int, Result<Response, RequestError>, duration: Duration)
    /// A redirect will be followed.
    case redirected(RedirectHop)
    /// Another attempt follows `record`'s after `delay`.
    case retryScheduled(AttemptRecord, delay: Duration)
    /// The request completed: its outcome, attempts and duration.
    case completed(Request, Result<Response, RequestError>, attempts: Int, duration: Duration)
}

/// Watches requests: receives their events synchronously, on the thread the request's events
/// run on (the transport's loop, or the caller's for what happens before the request reaches it).
protocol RequestObserver: Sendable {
    /// `event` happened to request `id`.
    func observe(_ event: RequestEvent, id: UInt64)
}
