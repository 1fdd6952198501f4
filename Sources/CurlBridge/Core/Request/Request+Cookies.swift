extension Request {
    /// This request with the transport's cookie jar switched on or off (on by default). Off, the
    /// request neither sends the jar's cookies nor stores the cookies its response sets
    /// (`NSURLRequest.httpShouldHandleCookies = false`).
    ///
    /// A `Cookie` header set on the request is sent either way. With the jar on, curl sends the
    /// jar's cookies for the URL as well, in a `Cookie` header line before yours (two `Cookie`
    /// lines over HTTP/1.1); to send only your own, switch the jar off for the request, or add
    /// yours to the jar instead.
    public func cookies(_ usesJar: Bool) -> Request {
        var copy = self
        copy.usesCookieJar = usesJar
        return copy
    }
}
