internal import CCurl

/// The options a transport applies to every easy handle, computed once from its ``Configuration``.
/// A class, immutable: each transfer reads them through one reference, where a struct of strings
/// and arrays was copied (a dozen retains and releases) into every transfer.
final class CurlEasyOptions {
    /// Trust, pins, TLS version and client certificate.
    let tls: CurlTLSOptions
    /// `CURLOPT_HTTP_VERSION`.
    let httpVersion: Int
    /// Whether to ask for every content encoding curl can decode.
    let decodesContentEncoding: Bool
    /// The configured `CURLOPT_BUFFERSIZE`; each transfer gets what the engine's
    /// ``CurlReceiveBufferChoice`` makes of it.
    let receiveBufferSize: Int
    /// The transport's cookie jar, `nil` when cookies are disabled.
    let cookieShare: CurlCookieShare?
    /// The proxies.
    let proxy: CurlProxyOptions
    /// Unix socket, connection ages and local binding.
    let connection: CurlConnectionOptions
    /// Whether a finished transfer's easy handle serves a later one (see
    /// ``CurlGlobal/clearsHeaderStateOnReuse``).
    let reusesHandles: Bool
    /// The default header lines as curl lists, for the requests that send them unchanged; `nil`
    /// if curl could not build them.
    let defaultHeaderLists: CurlDefaultHeaderLists?

    /// The options for `configuration`, with the transport's cookie jar and its default header
    /// lines (``RequestDefaults/lines``).
    init(_ configuration: Configuration, cookieShare: CurlCookieShare?, defaultHeaderLines: [String]) {
        tls = CurlTLSOptions(configuration.tls)
        httpVersion = configuration.httpVersion.curlValue
        decodesContentEncoding = configuration.decodesContentEncoding
        receiveBufferSize = configuration.receiveBufferSize
        self.cookieShare = cookieShare
        proxy = CurlProxyOptions(configuration.proxy)
        connection = CurlConnectionOptions(configuration)
        reusesHandles = configuration.reusesEasyHandles ?? CurlGlobal.clearsHeaderStateOnReuse
        defaultHeaderLists = try? CurlDefaultHeaderLists(defaultHeaderLines)
    }

    /// Applies these options, and the safe defaults every transfer gets, to `easy`, for a request
    /// to `url`, an `https` one when `usesTLS`; `pinning` is the request's own, which replaces the
    /// configuration's pins; `receiveBufferSize` is the transfer's (see ``CurlReceiveBufferChoice``).
    ///
    /// The TLS options go to `https` requests only. An `http` request's transfer makes no TLS
    /// connection to its origin: redirects are new transfers with options of their own, a proxy's
    /// TLS has options of its own (``CurlProxyOptions``), and curl upgrades no URL by itself while
    /// neither HSTS nor Alt-Svc is enabled — enabling either would have to apply them to every
    /// request, or an upgraded one would connect without its host's trust settings and pins. Its
    /// transfer may use `http` alone (`CURLOPT_PROTOCOLS`), so that it fails closed if it is not one.
    ///
    /// - Returns: The TLS policy in force for the request's host; `nil` for an `http` request.
    func apply(
        to easy: CurlEasyHandle, url: String, usesTLS: Bool, pinning: Pinning?, receiveBufferSize: Int
    ) throws(RequestError) -> CurlTLSOptions.HostPolicy? {
        try easy.set(CURLOPT_NOSIGNAL, 1)
        // An `http` request may not become an `https` one, which would connect without its TLS
        // options (below): should `usesTLS` ever disagree with the URL, curl refuses it.
        try easy.check(ccurl_easy_allow_http(easy.raw, usesTLS), "CURLOPT_PROTOCOLS")
        // Redirects are followed above curl (RequestStateMachine), never by curl itself, so curl's
        // list of protocols it may redirect to (`CURLOPT_REDIR_PROTOCOLS_STR`) never applies.
        try easy.set(CURLOPT_FOLLOWLOCATION, 0)
        try easy.set(CURLOPT_HTTP_VERSION, httpVersion)
        if httpVersion == HTTPVersionPreference.http2OverTLS.curlValue, usesTLS {
            // Wait for a connection being set up to say whether it multiplexes, instead of opening another.
            try easy.set(CURLOPT_PIPEWAIT, 1)
        }
        if decodesContentEncoding {
            try easy.set(CURLOPT_ACCEPT_ENCODING, "")
        }
        try easy.set(CURLOPT_BUFFERSIZE, receiveBufferSize)
        try connection.apply(to: easy)
        guard usesTLS else { return nil }
        return try tls.apply(to: easy, url: url, pinning: pinning)
    }
}
