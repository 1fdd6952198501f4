import Foundation

extension Credential {
    /// Scheme, host and port (RFC 6454): the key of ``Configuration/credentials``. A credential
    /// for one origin is sent only to URLs of exactly that origin — not to another port, another
    /// scheme or a subdomain, and not to where a redirect points unless that is the same origin.
    public struct Origin: Sendable, Hashable, CustomStringConvertible {
        /// `http` or `https`, lowercase.
        public let scheme: String
        /// The host, lowercase (an IPv6 literal without brackets).
        public let host: String
        /// The port; 80 or 443 when the URL names none.
        public let port: Int

        /// An origin from its parts; `scheme` and `host` are lowercased, `port` defaults to the
        /// scheme's (443 for `https`, 80 otherwise).
        public init(scheme: String, host: String, port: Int? = nil) {
            self.scheme = scheme.lowercased()
            self.host = host.lowercased()
            self.port = port ?? (self.scheme == "https" ? 443 : 80)
        }

        /// The origin of an absolute `http` or `https` URL such as `"https://api.example.com"`,
        /// or `nil` for anything else.
        public init?(_ url: String) {
            guard let components = URLComponents(string: url),
                  let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = components.host, !host.isEmpty
            else { return nil }
            self.init(scheme: scheme, host: host, port: components.port)
        }

        /// `scheme://host:port`.
        public var description: String {
            "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        }
    }
}
