#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension URL {
    /// The absolute URL a `Location` value names, resolved against `self` (RFC 9110 §10.2.2), or
    /// `nil` when it is not a URL (a port above 65535 included, which Foundation accepts and curl
    /// refuses). Servers send raw spaces and UTF-8 in `Location`; those bytes are percent-encoded
    /// first, as browsers do.
    func resolvingLocation(_ location: String) -> URL? {
        let escaped = location.unicodeScalars.contains { $0.value <= 0x20 || $0.value >= 0x7F }
            ? location.utf8.map { byte in
                byte <= 0x20 || byte >= 0x7F ? "%" + byte.twoHexDigits.uppercased() : String(UnicodeScalar(byte))
            }.joined()
            : location
        return URL(string: escaped, relativeTo: self)?.absoluteURL.withValidPort
    }

    /// This URL, or `nil` when its port is above 65535.
    var withValidPort: URL? {
        (port ?? 0) <= 65535 ? self : nil
    }
}
