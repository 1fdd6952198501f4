import BenchSupport
import CurlBridge
import Glibc

/// The cache workloads, chosen with `--workload`: what an HTTP cache costs a request.
///
/// - `cache-miss`: every request has its own URL (`?n=<index>`), so each one is looked up, sent,
///   recorded and stored (nginx's `Last-Modified` makes the responses heuristically fresh).
/// - `cache-hit`: every request has the same URL, so all but the first are played from the cache
///   without touching the network.
enum CacheWorkload {
    case miss, hit

    /// The workload `--workload` names, or nil for the uncached workloads.
    init?(_ workload: String) {
        switch workload {
        case "cache-miss": self = .miss
        case "cache-hit": self = .hit
        default: return nil
        }
    }

    /// A memory cache large enough that no response of the run is evicted or refused (an entry
    /// may take an eighth of the limit).
    func makeCache() -> HTTPCache {
        do throws(RequestError) {
            return try HTTPCache(.memory(limit: 1 << 30))
        } catch {
            standardError("cannot make the cache: \(error.message)")
            exit(1)
        }
    }

    /// The request numbered `index` of the run.
    func request(_ index: Int, url: String) -> Request {
        switch self {
        case .miss: Request.get(url + (url.contains("?") ? "&" : "?") + "n=\(index)")
        case .hit: Request.get(url)
        }
    }
}
