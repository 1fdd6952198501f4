#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Whether a request that carries credentials may go to a plain `http://` URL: the decision
/// behind ``RequestError/Code/credentialsOverPlainHTTP``, a pure value.
///
/// Allowed when the configuration or the request opts in, and by default when the target is this
/// machine's loopback (exactly `localhost`, `127.0.0.0/8`, `::1`) reached directly: those bytes never
/// cross a network anyone could read. Through an HTTP proxy they would reach the proxy readable,
/// so a proxied loopback target is not exempt; nor is a Unix socket, whose URL names some other
/// host.
struct PlainHTTPCredentialRule: Sendable {
    /// ``Configuration/allowsCredentialsOverPlainHTTP``.
    var configurationAllows: Bool
    /// Whether plain-http requests go through a proxy (``ProxyConfiguration/httpProxy``).
    var isProxied: Bool
    /// Whether requests go to a Unix socket (``Configuration/unixSocketPath``).
    var usesUnixSocket: Bool

    /// Whether a request to `url` (absolute, resolved, `http://`) may carry credentials;
    /// `requestAllows` is ``Request/allowsCredentialsOverPlainHTTP``.
    func permits(_ url: String, requestAllows: Bool) -> Bool {
        if configurationAllows || requestAllows { return true }
        guard !isProxied, !usesUnixSocket, let host = URLComponents(string: url)?.host else { return false }
        return Self.isLoopback(host)
    }

    /// Whether `host` (as a URL spells it: an IPv6 literal with or without brackets) names the
    /// loopback interface: exactly `localhost` (any case), a literal IPv4 address in `127.0.0.0/8`,
    /// or `::1`. Not `localhost.` nor `127.0.0.1.`: libcurl 7.88 resolves a name with a trailing
    /// dot through DNS, so whoever answers for it would get the credentials.
    static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" { return true }
        var address = in6_addr()
        if inet_pton(AF_INET6, name, &address) == 1 {
            return withUnsafeBytes(of: &address) { $0.prefix(15).allSatisfy { $0 == 0 } && $0[15] == 1 }
        }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.first == "127"
            && octets.allSatisfy { $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) && Int($0).map { $0 <= 255 } == true }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
