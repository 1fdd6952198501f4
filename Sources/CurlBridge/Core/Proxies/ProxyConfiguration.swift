#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which proxy a transport's requests go through (``Configuration/proxy``): NSURLSession's
/// `connectionProxyDictionary`.
///
/// ```swift
/// configuration.proxy = .through(.http(host: "proxy.corp", port: 3128), bypassing: ["localhost", ".internal.corp"])
/// configuration.proxy = .fromEnvironment()    // HTTP_PROXY, HTTPS_PROXY, NO_PROXY
/// ```
///
/// The default is ``direct``: every request connects directly, and libcurl's own reading of
/// `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` is switched off, so the environment
/// changes nothing unless the configuration asks for it with ``fromEnvironment(_:)``.
///
/// Proxy credentials, and a `Proxy-Authorization` header set on a request, go to the proxy only:
/// in the request the proxy forwards, or in the `CONNECT` that opens a tunnel — never to a server
/// through a tunnel, and never to a server reached directly.
public struct ProxyConfiguration: Sendable, Hashable {
    /// The proxy for `http://` requests; `nil` connects directly.
    public var httpProxy: ProxyServer?
    /// The proxy for `https://` requests; `nil` connects directly.
    public var httpsProxy: ProxyServer?
    /// Hosts reached directly whatever the proxies (curl's `CURLOPT_NOPROXY`): a host name also
    /// covers its subdomains (`example.com` and `.example.com` both match `api.example.com`),
    /// IP addresses and CIDR ranges (`10.0.0.0/8`) match addresses, `*` matches everything.
    /// Empty by default.
    public var bypassedHosts: [String]

    /// Creates a configuration with a proxy per scheme.
    ///
    /// - Parameters:
    ///   - httpProxy: Proxy for `http://` requests; `nil` (direct) by default.
    ///   - httpsProxy: Proxy for `https://` requests; `nil` (direct) by default.
    ///   - bypassedHosts: See ``bypassedHosts``; empty by default.
    public init(httpProxy: ProxyServer? = nil, httpsProxy: ProxyServer? = nil, bypassing bypassedHosts: [String] = []) {
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.bypassedHosts = bypassedHosts
    }

    /// No proxy, whatever the environment says. The default.
    public static let direct = ProxyConfiguration()

    /// Every request (`http://` and `https://`) through `server`, except to `bypassedHosts`.
    public static func through(_ server: ProxyServer, bypassing bypassedHosts: [String] = []) -> ProxyConfiguration {
        ProxyConfiguration(httpProxy: server, httpsProxy: server, bypassing: bypassedHosts)
    }

    /// The proxies the environment names, read once, now, from `environment` (the process's by
    /// default; pass another dictionary to decide without changing the process):
    ///
    /// - `http://` requests: `http_proxy`, else `HTTP_PROXY` (ignored when `REQUEST_METHOD` is
    ///   set: in a CGI program a client's `Proxy:` header arrives as `HTTP_PROXY`), else
    ///   `all_proxy` / `ALL_PROXY`;
    /// - `https://` requests: `https_proxy`, else `HTTPS_PROXY`, else `all_proxy` / `ALL_PROXY`;
    /// - bypassed hosts: `no_proxy`, else `NO_PROXY`, split at commas.
    ///
    /// Values are proxy URLs as ``ProxyServer/init(url:)`` parses them (credentials included);
    /// empty or unparseable values are ignored.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ProxyConfiguration {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.trimmingWhitespace().isEmpty }
        }
        let isCGI = environment["REQUEST_METHOD"] != nil
        let all = value("all_proxy", "ALL_PROXY").flatMap(ProxyServer.init(url:))
        let http = (isCGI ? value("http_proxy") : value("http_proxy", "HTTP_PROXY")).flatMap(ProxyServer.init(url:))
        let https = value("https_proxy", "HTTPS_PROXY").flatMap(ProxyServer.init(url:))
        let bypassed = (value("no_proxy", "NO_PROXY") ?? "").split(separator: ",")
            .map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        return ProxyConfiguration(httpProxy: http ?? all, httpsProxy: https ?? all, bypassing: bypassed)
    }
}
