/// What runs the transfers of a transport's requests: curl (``CurlEngine``), or a stub that
/// answers instead (``StubEngine``). Both report to a ``TransferReceiver`` in the same way, so
/// what happens above them — redirects, retries, sinks, progress, completion — exists once.
///
/// An engine decides nothing about requests: it starts, stops, pauses and resumes transfers when
/// told, and reports what they do. Confined to the transport's loop, like everything it runs.
protocol TransferEngine: AnyObject {
    /// How many transfers are in flight: a counter any thread may read (the transport keeps it).
    var inFlight: TransferCounter { get }
    /// Whether any transfer is in flight (on the loop).
    var isBusy: Bool { get }
    /// Starts a transfer of `request` for request `id`; it reports to `receiver`. A transfer that
    /// cannot start reports its end before this returns.
    func begin(_ request: PreparedRequest, id: UInt64, receiver: any TransferReceiver)
    /// Ends request `id`'s transfer now and reports nothing more; returns its final progress,
    /// when the receiver wants progress.
    func stop(_ id: UInt64) -> TransferProgress?
    /// Stops receiving request `id`'s body until ``resumeReceiving(_:)``.
    func pauseReceiving(_ id: UInt64)
    /// Receives request `id`'s body again.
    func resumeReceiving(_ id: UInt64)
    /// Sends request `id`'s body again, after its stream had no bytes ready.
    func resumeSending(_ id: UInt64)

    // The loop's hooks (see ``RequestLoopDelegate``).

    /// Expires what is due at `now`; returns the next moment to look again, if any.
    func expire(at now: UInt64) -> UInt64?
    /// Ends every transfer with `error`.
    func failAll(_ error: RequestError)
    /// Nothing is in flight: trim what is kept for the next transfers — everything, when the
    /// loop has closed for good.
    func rest(closed: Bool)
}

/// How a transfer ended, as its engine reports it.
struct TransferEnd {
    /// The response (its body left to the receiver's sink) or the failure.
    var result: Result<Response, RequestError>
    /// The final byte counts, when the receiver wants progress.
    var finalProgress: TransferProgress?
    /// Whether curl failed it only because its HTTP/2 session was closing, before any byte of a
    /// response and with no failure of ours: ``ResendRule`` may send it again.
    var failedOnClosingSession = false
    /// The values of the `Cookie` lines of the last request head curl sent, when the request
    /// asked (``PreparedRequest/reportsSentCookies``) and curl sent one; `nil` otherwise.
    var sentCookieLines: [String]?
}

/// Where an engine reports one transfer — curl's callbacks or a stub's answer — on the loop.
protocol TransferReceiver: AnyObject {
    /// Whether each final head is wanted as a ``ResponseHead`` (building one costs); read once
    /// per transfer, when it begins.
    var wantsHeads: Bool { get }
    /// Whether progress is wanted.
    var wantsProgress: Bool { get }
    /// Whether the body is held in memory until the end (a plain send's), rather than streamed
    /// to a consumer or written to a file: curl may then read it with a smaller receive buffer
    /// (``Configuration/receiveBufferSize``).
    var collectsBody: Bool { get }
    /// A final head ended, declaring `declaredLength` body bytes: an error refuses the body now
    /// (one held in memory beyond its cap), before a byte of it is read.
    func transferWillReceiveBody(declaredLength: Int64?, status: Int) -> RequestError?
    /// The final head (when ``wantsHeads``); an error stops the transfer with it.
    func transferReceivedHead(_ head: ResponseHead) -> RequestError?
    /// A piece of the body, valid only during the call.
    func transferReceivedBody(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict
    /// Bytes moved so far (when ``wantsProgress``), at most every ``TransferProgress/minimumInterval``.
    func transferProgressed(_ progress: TransferProgress)
    /// The transfer ended; called once, and nothing after it.
    func transferEnded(_ end: consuming TransferEnd)
}
