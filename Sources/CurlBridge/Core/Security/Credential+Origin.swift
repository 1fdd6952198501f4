#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

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
        /// scheme's (443 for `https`, 80 otherwise). An IPv6 literal is kept without brackets
        /// (`::1`, whether given as `::1` or `[::1]`). An IPv4 address written in another form that
        /// libcurl connects to as the same address (`0x7f.1`, `2130706433`, `0177.0.0.1`) is
        /// written dotted-decimal (`127.0.0.1`), as curl's URL parser rewrites it, so two URLs have
        /// the same origin exactly when curl connects them to the same address.
        public init(scheme: String, host: String, port: Int? = nil) {
            self.scheme = scheme.lowercased()
            let lowercased = host.lowercased()
            // Foundation's URLComponents keeps an IPv6 literal's brackets; the origin does not.
            let bare = lowercased.hasPrefix("[") && lowercased.hasSuffix("]") ? String(lowercased.dropFirst().dropLast()) : lowercased
            self.host = Self.dottedDecimal(bare) ?? bare
            self.port = port ?? (self.scheme == "https" ? 443 : 80)
        }

        /// `host` as a dotted-decimal IPv4 address when it is one written in any of the forms
        /// `inet_aton` (and so libcurl 7.88's URL parser) accepts: one to four parts, each decimal,
        /// `0x` hexadecimal or `0` octal.
        private static func dottedDecimal(_ host: String) -> String? {
            guard host.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "x") || $0.isHexDigit }),
                  host.utf8.first?.isDigit == true
            else { return nil }
            var address = in_addr()
            guard inet_aton(host, &address) != 0 else { return nil }
            let value = UInt32(bigEndian: address.s_addr)
            return "\(value >> 24).\((value >> 16) & 0xFF).\((value >> 8) & 0xFF).\(value & 0xFF)"
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

private extension UInt8 {
    var isDigit: Bool { UInt8(ascii: "0")...UInt8(ascii: "9") ~= self }
    var isHexDigit: Bool { isDigit || UInt8(ascii: "a")...UInt8(ascii: "f") ~= self }
}
