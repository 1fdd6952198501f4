#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CCurl

/// A transport's proxy settings in the form curl takes them, computed once from its
/// ``ProxyConfiguration`` rather than for every request.
struct CurlProxyOptions {
    /// One proxy server's options.
    struct Server {
        /// `CURLOPT_PROXY`.
        let url: String
        let credentials: ProxyServer.Credentials?
        /// The proxy's own CA certificates, which replace the system store, if it has any.
        let trustedCertificates: CurlBlob?

        init(_ server: ProxyServer) {
            url = server.curlURL
            credentials = server.credentials
            trustedCertificates = server.trustedCertificates.map { CurlBlob(Data($0.pem.utf8)) }
        }
    }

    private let http: Server?
    private let https: Server?
    /// `CURLOPT_NOPROXY`.
    private let bypassedHosts: String

    init(_ configuration: ProxyConfiguration) {
        http = configuration.httpProxy.map(Server.init)
        https = configuration.httpsProxy.map(Server.init)
        bypassedHosts = configuration.bypassedHosts.joined(separator: ",")
    }

    /// Sets the proxy for a request to an `https` URL (`usesTLS`) or an `http` one — or, when
    /// there is none, switches proxies off explicitly, since libcurl would otherwise take one from
    /// `http_proxy`/`https_proxy`/`all_proxy` by itself.
    func apply(to easy: CurlEasyHandle, usesTLS: Bool) throws(RequestError) {
        guard let server = usesTLS ? https : http else {
            try easy.set(CURLOPT_PROXY, "")
            return
        }
        try easy.set(CURLOPT_PROXY, server.url)
        // Always set, so that libcurl does not read no_proxy/NO_PROXY from the environment.
        try easy.set(CURLOPT_NOPROXY, bypassedHosts)
        if let credentials = server.credentials {
            try easy.set(CURLOPT_PROXYUSERNAME, credentials.user)
            try easy.set(CURLOPT_PROXYPASSWORD, credentials.password)
        }
        if let trusted = server.trustedCertificates {
            // Replaces the system store: without the CA file and directory curl would also read.
            try easy.set(CURLOPT_PROXY_CAINFO_BLOB, retaining: trusted)
            try easy.set(CURLOPT_PROXY_CAINFO, pointer: nil)
            try easy.set(CURLOPT_PROXY_CAPATH, pointer: nil)
        }
    }
}
