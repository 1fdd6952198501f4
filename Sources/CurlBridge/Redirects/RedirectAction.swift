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
}

/// A ``RedirectHandler``'s decision.
public enum RedirectAction: Sendable {
    /// Follow with ``RedirectContext/next`` as it is.
    case follow
    /// Follow with this request instead (e.g. ``RedirectContext/next`` with a header added). It
    /// is sent as given: the policy's header stripping is not applied again, but the scheme
    /// rules (http and https only, no downgrade unless allowed) are.
    case followModified(Request)
    /// Do not follow: the redirect response is the result, body included.
    case stop
}
