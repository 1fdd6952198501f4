internal import CCurl

/// What runs on a ``CurlMultiLoop``: called only by the loop's owner.
protocol CurlMultiLoopDelegate: AnyObject {
    /// Whether transfers are in curl: the loop turns (and polls) while so. Requests waiting for a
    /// timer or an interceptor's answer hold no turn; their work is submitted when it comes.
    var isBusy: Bool { get }
    /// Whether nothing is left to complete: during shutdown, the loop closes once so.
    var isDrained: Bool { get }
    /// curl finished the transfer on `easy` with `result`.
    func transferDidFinish(_ easy: UnsafeMutableRawPointer, _ result: CURLcode)
    /// A turn ended: announce the stream chunks the turn gathered, then expire what was due at
    /// `now`, read before the turn took its inbox (so that work submitted earlier, such as a
    /// cancel, came first); returns the next moment to look again, if any.
    func turnDidEnd(now: UInt64) -> UInt64?
    /// The multi handle failed: every transfer in flight fails with `error`.
    func multiDidFail(_ error: RequestError)
    /// The transport began shutting down (called once, in order with the submitted work).
    func shutdownDidBegin()
    /// Nothing is in flight: the loop may stop after this turn (trim caches).
    func loopWillRest()
    /// The loop closed for good: release everything kept.
    func loopDidClose()
}
