internal import CCurl

extension CurlEasyOptions {
    /// Attaches the transport's cookie jar (unless the request opted out) and sets the proxy for
    /// `request`'s URL (see ``CurlProxyOptions/apply(to:usesTLS:)``).
    func applyCookiesAndProxy(to easy: CurlEasyHandle, request: PreparedRequest) throws(RequestError) {
        if request.usesCookieJar, let cookieShare {
            try cookieShare.attach(to: easy)
        }
        try proxy.apply(to: easy, usesTLS: request.usesTLS)
    }
}
