import Foundation
internal import CCurl

extension CurlEasyOptions {
    /// Attaches the transport's cookie jar (unless the request opted out) and sets the proxy for
    /// `request`'s URL — or, when there is none, switches proxies off explicitly, since libcurl
    /// would otherwise take one from `http_proxy`/`https_proxy`/`all_proxy` by itself.
    func applyCookiesAndProxy(to easy: CurlEasyHandle, request: PreparedRequest) throws(RequestError) {
        if request.usesCookieJar, let cookieShare {
            try cookieShare.attach(to: easy)
        }
        guard let server = proxy.server(for: request.url) else {
            try easy.set(CURLOPT_PROXY, "")
            return
        }
        try easy.set(CURLOPT_PROXY, server.curlURL)
        // Always set, so that libcurl does not read no_proxy/NO_PROXY from the environment.
        try easy.set(CURLOPT_NOPROXY, proxy.bypassedHosts.joined(separator: ","))
        if let credentials = server.credentials {
            try easy.set(CURLOPT_PROXYUSERNAME, credentials.user)
            try easy.set(CURLOPT_PROXYPASSWORD, credentials.password)
        }
        if let trusted = server.trustedCertificates {
            // Replaces the system store: without the CA file and directory curl would also read.
            try easy.set(CURLOPT_PROXY_CAINFO_BLOB, retaining: CurlBlob(Data(trusted.pem.utf8)))
            try easy.set(CURLOPT_PROXY_CAINFO, pointer: nil)
            try easy.set(CURLOPT_PROXY_CAPATH, pointer: nil)
        }
    }
}
