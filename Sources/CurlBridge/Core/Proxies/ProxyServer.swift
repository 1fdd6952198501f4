#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One proxy server: its protocol, address and credentials.
///
/// ```swift
/// .http(host: "proxy.corp", port: 3128, credentials: .init(user: "me", password: secret))
/// .https(host: "proxy.corp", port: 443, trusting: try CertificateBundle(pemFile: corporateCA))
/// .socks5h(host: "127.0.0.1", port: 1080)        // the proxy resolves host names
/// ```
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// The protocol spoken to the proxy.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The URL scheme curl names it by.
        public let scheme: String

        private init(_ scheme: String) { self.scheme = scheme }

        /// An HTTP proxy: `http://` requests are sent to it whole, `https://` ones through a
        /// `CONNECT` tunnel.
        public static let http = Kind("http")
        /// An HTTP proxy reached over TLS (the connection to the proxy is encrypted too).
        public static let https = Kind("https")
        /// A SOCKS5 proxy; host names are resolved locally and the proxy gets an address.
        public static let socks5 = Kind("socks5")
        /// A SOCKS5 proxy that resolves host names itself (nothing is looked up locally).
        public static let socks5h = Kind("socks5h")

        /// The kind for a proxy URL's scheme (case-insensitive), or `nil` for one curl's SOCKS4 or
        /// other schemes CurlBridge does not offer.
        public init?(scheme: String) {
            switch scheme.lowercased() {
            case "http": self = .http
            case "https": self = .https
            case "socks5": self = .socks5
            case "socks5h": self = .socks5h
            default: return nil
            }
        }

        /// The scheme.
        public var description: String { scheme }
    }

    /// A user name and password for the proxy, sent to the proxy only (HTTP `Basic`
    /// `Proxy-Authorization`, or SOCKS5 username/password authentication), never to a server.
    public struct Credentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
        /// The user name.
        public var user: String
        /// The password.
        public var password: String

        /// Creates credentials.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }

        /// The user name, with the password hidden.
        public var description: String { "\(user):<hidden>" }

        /// Shows only ``description``, so `dump` prints no password either.
        public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
    }

    /// The protocol spoken to the proxy.
    public var kind: Kind
    /// The proxy's host name or IP address (an IPv6 address without brackets).
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// Credentials for the proxy; `nil` by default.
    public var credentials: Credentials?
    /// For an ``Kind/https`` proxy: CA certificates that replace the system store when verifying
    /// the proxy's certificate; `nil` (the system store) by default.
    public var trustedCertificates: CertificateBundle?

    /// Creates a proxy server description.
    ///
    /// - Parameters:
    ///   - kind: The protocol spoken to the proxy.
    ///   - host: Host name or IP address.
    ///   - port: Port.
    ///   - credentials: Credentials for the proxy; `nil` by default.
    ///   - trustedCertificates: See ``trustedCertificates``; `nil` by default.
    public init(_ kind: Kind, host: String, port: Int, credentials: Credentials? = nil, trustedCertificates: CertificateBundle? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credentials = credentials
        self.trustedCertificates = trustedCertificates
    }

    /// An HTTP proxy.
    public static func http(host: String, port: Int, credentials: Credentials? = nil) -> ProxyServer {
        ProxyServer(.http, host: host, port: port, credentials: credentials)
    }

    /// An HTTP proxy reached over TLS, verified against the system store or, when given, the CA
    /// certificates `trusting` instead.
    public static func https(host: String, port: Int, credentials: Credentials? = nil, trusting certificates: CertificateBundle? = nil) -> ProxyServer {
        ProxyServer(.https, host: host, port: port, credentials: credentials, trustedCertificates: certificates)
    }

    /// A SOCKS5 proxy; host names are resolved locally.
    public static func socks5(host: String, port: Int, credentials: Credentials? = nil) -> ProxyServer {
        ProxyServer(.socks5, host: host, port: port, credentials: credentials)
    }

    /// A SOCKS5 proxy that resolves host names itself.
    public static func socks5h(host: String, port: Int, credentials: Credentials? = nil) -> ProxyServer {
        ProxyServer(.socks5h, host: host, port: port, credentials: credentials)
    }

    /// Parses a proxy URL as found in `HTTP_PROXY`: `[scheme://][user[:password]@]host[:port]`,
    /// with `http` when no scheme is given and curl's default ports (443 for `https`, else 1080).
    /// User and password are percent-decoded.
    ///
    /// - Returns: `nil` when there is no host or the scheme is not one of ``Kind``'s.
    public init?(url text: String) {
        let text = text.trimmingWhitespace()
        guard !text.isEmpty,
              let components = URLComponents(string: text.contains("://") ? text : "http://" + text),
              let kind = components.scheme.flatMap(Kind.init(scheme:)),
              var host = components.host, !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let credentials = components.user.map { Credentials(user: $0, password: components.password ?? "") }
        self.init(kind, host: host, port: components.port ?? (kind == .https ? 443 : 1080), credentials: credentials)
    }

    /// The proxy as curl's `CURLOPT_PROXY` takes it, without credentials: `scheme://host:port`.
    var curlURL: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(kind.scheme)://\(bracketed):\(port)"
    }

    /// `scheme://host:port`, with the user name but never the password.
    public var description: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let user = credentials.map { "\($0.user)@" } ?? ""
        return "\(kind.scheme)://\(user)\(bracketed):\(port)"
    }
}
