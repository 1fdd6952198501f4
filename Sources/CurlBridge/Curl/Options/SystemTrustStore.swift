#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
internal import CCurl

/// The CA bundle libcurl trusts by default, for ``TrustRoots/system`` and
/// ``TrustRoots/systemAdding(_:)``.
///
/// libcurl's OpenSSL backend ignores its CA file (`CURLOPT_CAINFO`) as soon as an in-memory bundle
/// (`CURLOPT_CAINFO_BLOB`) is set, so adding CAs to the system store means handing curl one blob
/// with both: the system bundle's PEM followed by the added certificates.
///
/// For the system store alone, curl is given the bundle file and no CA directory: Debian's libcurl
/// is built with both (`/etc/ssl/certs/ca-certificates.crt` and `/etc/ssl/certs`), and a CA
/// directory keeps curl from caching the parsed store (`CURLOPT_CA_CACHE_TIMEOUT`, libcurl 7.87+),
/// so every new TLS connection would parse the whole bundle again (17–21 ms on our 2-core machine).
/// The directory holds the same certificates as the bundle, both written by
/// `update-ca-certificates`.
enum SystemTrustStore {
    /// Where curl looks for its CA bundle when told nothing (`CURLINFO_CAINFO`, libcurl 7.84+),
    /// or Debian's path when curl does not say.
    private static let bundlePath: String = {
        let path = (try? CurlEasyHandle())?.info(string: CURLINFO_CAINFO) ?? ""
        return path.isEmpty ? "/etc/ssl/certs/ca-certificates.crt" : path
    }()

    /// The system bundle's path, if it is a readable, non-empty file: curl is then given it alone,
    /// so that it caches the parsed store; `nil` leaves curl's defaults (file and directory).
    static let bundleFile: String? = bundleFileIfUsable(bundlePath)

    /// `path` if it names a readable, non-empty regular file.
    static func bundleFileIfUsable(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0,
              access(path, R_OK) == 0
        else { return nil }
        return path
    }

    /// The system bundle's PEM, read once per process; empty when it cannot be read (curl's CA
    /// directory, `CURLOPT_CAPATH`, still applies then).
    static let bundlePEM: Data = (try? Data(contentsOf: URL(fileURLWithPath: bundlePath))) ?? Data()

    /// The PEM of `file` standing for the system bundle: ``bundlePEM`` for the system's own file
    /// or `nil`, a test's bundle read now.
    static func pem(of file: String?) -> Data {
        guard let file, file != bundleFile else { return bundlePEM }
        return FileManager.default.contents(atPath: file) ?? Data()
    }
}
