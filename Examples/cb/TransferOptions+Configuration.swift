import CurlBridge
import Foundation

extension TransferOptions {
    /// The transport's configuration: trust (`--cacert`, `-k`), pins (`--pin`, for the hosts of
    /// `urls`), redirects (`-L`, `--max-redirs`; none followed without `-L`, as curl), retries
    /// (`--retry`) and the cache (`--cache`).
    func configuration(for urls: [String]) throws(CommandFailure) -> Configuration {
        var configuration = Configuration()
        configuration.tls.disablesCertificateVerification = insecure
        do throws(RequestError) {
            if let cacert {
                let authorities = try CertificateBundle(pemFile: URL(fileURLWithPath: cacert))
                configuration.tls.trustRoots = .replacingSystem(with: authorities)
            }
            if let cache {
                configuration.cache = try HTTPCache(.disk(directory: URL(fileURLWithPath: cache, isDirectory: true), limit: 100 << 20))
            }
            if !pin.isEmpty {
                let pinning = try Pinning.publicKeys(pin)
                for host in Set(urls.compactMap { URL(string: $0)?.host }) { configuration.tls.pins[host] = pinning }
            }
        } catch {
            throw CommandFailure(error.code == .fileIO ? .fileError : .usage, error.message)
        }
        if followsRedirects {
            configuration.redirects = .standard
            if let maximumRedirects { configuration.redirects.maximumHops = maximumRedirects }
        } else {
            configuration.redirects = .none
        }
        configuration.retryPolicy = retry > 0 ? RetryPolicy(maximumAttempts: retry + 1) : .none
        return configuration
    }
}
