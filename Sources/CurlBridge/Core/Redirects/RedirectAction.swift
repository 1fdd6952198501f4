import HTTPTypes

/// What a ``RedirectHandler`` is told about a redirect before it is followed.
public struct RedirectContext: Sendable {
    /// The redirect response: status and headers (its body is not kept).
    public var response: ResponseHead
    /// The request that was redirected, as it was sent on this hop.
    public var request: Request
    /// The request CurlBridge will send next if the handler answers ``RedirectAction/follow``:
    /// method, body and headers already adjusted by the policy.
    public var next: Request
    /// Which hop this is: 1 for the first redirect.
    public var hop: Int
    /// Whether the next request goes to another origin (scheme, host or port).
    public var isCrossOrigin: Bool

    /// Creates a context, e.g. to unit-test a ``RedirectHandler``.
    public init(response: ResponseHead, request: Request, next: Request, hop: Int, isCrossOrigin: Bool) {
        self.response = response
        self.request = request
        self.next = next
        self.hop = hop
        self.isCrossOrigin = isCrossOrigin
    }
}

/// A ``RedirectHandler``'s decision.
public enum RedirectAction: Sendable {
    /// Follow with ``RedirectContext/next`` as it is.
    case follow
    /// Follow with this request instead (e.g. ``RedirectContext/next`` with a header added). It
    /// is sent as given, with two exceptions: the scheme rules (http and https only, no downgrade
    /// unless allowed) apply, and if it goes to another origin than the redirecting URL, its
    /// credentials (`Authorization`, `Proxy-Authorization`, `Cookie`, ``Request/credential``)
    /// and sensitive headers are removed.
    case followModified(Request)
    /// Do not follow: the redirect response is the result, body included.
    case stop
}
