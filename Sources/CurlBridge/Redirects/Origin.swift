import Foundation

/// The scheme, host and port of a URL: two URLs with the same origin may share credentials.
struct Origin: Hashable {
    /// Lowercased `http` or `https` (or whatever else the URL says).
    let scheme: String
    /// Lowercased host name or address.
    let host: String
    /// The port, explicit or the scheme's default.
    let port: Int

    /// The origin of `url`, or `nil` when it has no scheme or host.
    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }
}

extension URL {
    /// The absolute URL a `Location` value names, resolved against `self` (RFC 9110 §10.2.2), or
    /// `nil` when it is not a URL. Servers send raw spaces and UTF-8 in `Location`; those bytes
    /// are percent-encoded first, as browsers do.
    func resolvingLocation(_ location: String) -> URL? {
        let escaped = location.unicodeScalars.contains { $0.value <= 0x20 || $0.value >= 0x7F }
            ? location.utf8.map { byte in
                byte <= 0x20 || byte >= 0x7F ? String(format: "%%%02X", byte) : String(UnicodeScalar(byte))
            }.joined()
            : location
        return URL(string: escaped, relativeTo: self)?.absoluteURL
    }
}
