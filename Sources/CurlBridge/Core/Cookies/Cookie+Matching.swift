#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension Cookie {
    /// Whether curl sends this cookie with a request to `url` at `now` (RFC 6265 domain and path
    /// matching, as curl's `Curl_cookie_getlist` does it).
    func matches(_ url: URLComponents, at now: Date) -> Bool {
        guard !hasExpired(at: now), let host = url.host?.lowercased() else { return false }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let hostMatches = bareHost == domain
            || (includesSubdomains && !Self.isIPAddress(bareHost) && bareHost.hasSuffix("." + domain))
        guard hostMatches else { return false }
        if isSecure {
            // curl treats these loopback names as secure contexts over plain HTTP.
            let secureContext = url.scheme?.lowercased() == "https"
                || ["localhost", "127.0.0.1", "::1"].contains(bareHost)
            guard secureContext else { return false }
        }
        let requestPath = url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath
        return Self.pathMatches(requestPath, cookiePath: matchingPath)
    }

    /// The path as curl matches it (`sanitize_cookie_path`): without surrounding quotes, `/` when
    /// it does not start with one, and without a trailing `/` (but for `/` itself).
    var matchingPath: String {
        var path = Substring(path)
        if path.first == "\"" { path = path.dropFirst() }
        if path.last == "\"" { path = path.dropLast() }
        guard path.first == "/" else { return "/" }
        if path.count > 1, path.last == "/" { path = path.dropLast() }
        return String(path)
    }

    /// RFC 6265 §5.1.4: equal, or `cookiePath` is a prefix ending at a `/` boundary.
    static func pathMatches(_ requestPath: String, cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.count == cookiePath.count || cookiePath.hasSuffix("/")
            || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// Whether `host` is an IPv4 or IPv6 literal (never domain-matched by suffix).
    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
