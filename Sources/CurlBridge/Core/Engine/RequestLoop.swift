/// The serial loop a transport's requests run on (``CurlMultiLoop``, in the curl tier): every
/// command for a request — a start, a cancel, a timer, a stub's or an interceptor's answer — is
/// work handed to it, from any thread, and runs on it in order.
protocol RequestLoop: AnyObject, Sendable {
    /// Work for the loop's owner.
    typealias Work = @Sendable () -> Void

    /// Hands `work` to the loop's owner; never runs it inline.
    ///
    /// - Parameter isNewRequest: Whether the work starts a request: refused once shutdown began.
    /// - Returns: `false` when the loop no longer accepts it.
    @discardableResult
    func submit(isNewRequest: Bool, _ work: @escaping Work) -> Bool
}

extension RequestLoop {
    /// Hands `work`, which starts no request, to the loop's owner; `false` once the loop closed.
    @discardableResult
    func submit(_ work: @escaping Work) -> Bool {
        submit(isNewRequest: false, work)
    }
}

/// What runs on a ``RequestLoop``: called only by the loop's owner.
protocol RequestLoopDelegate: AnyObject {
    /// Whether transfers are in flight: the loop turns (and polls) while so. Requests waiting for
    /// a timer or an interceptor's answer hold no turn; their work is submitted when it comes.
    var isBusy: Bool { get }
    /// Whether nothing is left to complete: during shutdown, the loop closes once so.
    var isDrained: Bool { get }
    /// A turn ended: deliver the completions of the requests that completed in it, announce the
    /// stream chunks the turn gathered, then expire what was due at `now`, read before the turn
    /// took its inbox (so that work submitted earlier, such as a cancel, came first), and deliver
    /// the completions that expiring made; returns the next moment to look again, if any.
    func turnDidEnd(now: UInt64) -> UInt64?
    /// The loop failed: every transfer in flight fails with `error`.
    func loopDidFail(_ error: RequestError)
    /// The transport began shutting down (called once, in order with the submitted work).
    func shutdownDidBegin()
    /// Nothing is in flight: the loop may stop after this turn (trim caches).
    func loopWillRest()
    /// The loop closed for good: release everything kept.
    func loopDidClose()
}
