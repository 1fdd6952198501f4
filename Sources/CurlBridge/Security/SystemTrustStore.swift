import Foundation
internal import CCurl

/// The CA bundle libcurl trusts by default, for ``TrustRoots/systemAdding(_:)``.
///
/// libcurl's OpenSSL backend ignores its CA file (`CURLOPT_CAINFO`) as soon as an in-memory bundle
/// (`CURLOPT_CAINFO_BLOB`) is set, so adding CAs to the system store means handing curl one blob
/// with both: the system bundle's PEM followed by the added certificates.
enum SystemTrustStore {
    /// Where curl looks for its CA bundle when told nothing (`CURLINFO_CAINFO`, libcurl 7.84+),
    /// or Debian's path when curl does not say.
    private static var bundlePath: String {
        let path = (try? CurlEasyHandle())?.info(string: CURLINFO_CAINFO) ?? ""
        return path.isEmpty ? "/etc/ssl/certs/ca-certificates.crt" : path
    }

    /// The system bundle's PEM, read once per process; empty when it cannot be read (curl's CA
    /// directory, `CURLOPT_CAPATH`, still applies then).
    static let bundlePEM: Data = (try? Data(contentsOf: URL(fileURLWithPath: bundlePath))) ?? Data()
}
