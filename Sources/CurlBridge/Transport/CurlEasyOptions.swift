internal import CCurl

/// The options a transport applies to every easy handle, computed once from its ``Configuration``.
struct CurlEasyOptions: Sendable {
    /// In-memory CA certificates (PEM) that replace the system store, if any.
    let trustedCertificates: [UInt8]?
    /// Whether to verify peer certificate and host name.
    let verifiesPeer: Bool
    /// `CURLOPT_HTTP_VERSION`.
    let httpVersion: Int
    /// Whether to ask for every content encoding curl can decode.
    let decodesContentEncoding: Bool
    /// `CURLOPT_BUFFERSIZE`.
    let receiveBufferSize: Int
    /// The transport's cookie jar, `nil` when cookies are disabled.
    let cookieShare: CurlCookieShare?
    /// The proxies.
    let proxy: ProxyConfiguration
    /// Unix socket, connection ages and local binding.
    let connection: CurlConnectionOptions

    /// The options for `configuration`, with the transport's cookie jar.
    init(_ configuration: Configuration, cookieShare: CurlCookieShare?) {
        trustedCertificates = configuration.tls.trustedCertificatesPEM.map { Array($0.utf8) }
        verifiesPeer = configuration.tls.verifiesPeer
        httpVersion = configuration.httpVersion.curlValue
        decodesContentEncoding = configuration.decodesContentEncoding
        receiveBufferSize = configuration.receiveBufferSize
        self.cookieShare = cookieShare
        proxy = configuration.proxy
        connection = CurlConnectionOptions(configuration)
    }

    /// Applies these options, and the safe defaults every transfer gets, to `easy`.
    func apply(to easy: CurlEasyHandle, url: String) throws(RequestError) {
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_FOLLOWLOCATION, 0)
        try easy.set(CURLOPT_HTTP_VERSION, httpVersion)
        if httpVersion == HTTPVersionPreference.http2OverTLS.curlValue, url.prefix(6).lowercased() == "https:" {
            // Wait for a connection being set up to say whether it multiplexes, instead of opening another.
            try easy.set(CURLOPT_PIPEWAIT, 1)
        }
        if decodesContentEncoding {
            try easy.set(CURLOPT_ACCEPT_ENCODING, "")
        }
        try easy.set(CURLOPT_BUFFERSIZE, receiveBufferSize)
        if let trustedCertificates {
            try easy.set(CURLOPT_CAINFO_BLOB, blob: trustedCertificates)
        }
        if !verifiesPeer {
            try easy.set(CURLOPT_SSL_VERIFYPEER, 0)
            try easy.set(CURLOPT_SSL_VERIFYHOST, 0)
        }
        try connection.apply(to: easy)
    }
}
