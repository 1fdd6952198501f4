import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A private HTTP cache (RFC 9111) that transports share: set it as ``Configuration/cache``.
///
/// It stores responses to `GET` requests that the protocol allows it to store, answers later
/// requests with them while they are fresh, revalidates them with their validators (`ETag`,
/// `Last-Modified`) when they are stale, and obeys `Cache-Control` in requests and responses and
/// each request's ``CachePolicy``. Every response says where it came from
/// (``Response/cacheStatus``).
///
/// ```swift
/// var configuration = Configuration()
/// configuration.cache = try HTTPCache(.disk(directory: cacheDirectory, limit: 100 << 20))
/// ```
///
/// One cache may serve several transports; two caches of one process on one directory share
/// their store. A response larger than an eighth of the limit is not stored.
///
/// **Who sees a stored response.** Only a request that would send exactly the same credentials
/// — its `Authorization`, `Proxy-Authorization` and `Cookie` fields, a challenged credential,
/// the URL's user info and the cookies curl adds from the transport's jar — under exactly the same
/// trust: the same TLS configuration (verification, trust roots, pins, client certificate,
/// minimum version), the same request pins, proxies and Unix socket. Each response is stored
/// under a keyed hash of those (never the secrets), so another user, an anonymous request and a
/// pinned request never get it. `Set-Cookie` is never stored. A disk cache's directory must be
/// private to this user (see <doc:Caching>).
public final class HTTPCache: Sendable {
    /// Where a cache keeps responses.
    public enum Storage: Sendable, Hashable {
        /// In memory, up to `limit` bytes.
        case memory(limit: Int)
        /// In `directory` (created if missing), up to `limit` bytes: crash-safe, files `0600`,
        /// kept across runs.
        case disk(directory: URL, limit: Int)
    }

    /// Where this cache keeps responses.
    public let storage: Storage
    let store: any CacheStore
    /// The wall clock responses are aged by.
    let now: @Sendable () -> Date
    /// The largest response stored: an eighth of the limit.
    let maximumEntrySize: Int
    /// The serial queue every transport's requests read the store on (``CachingEngine``), so
    /// that no loop thread waits for a disk.
    let lookupQueue = DispatchQueue(label: "CurlBridge.HTTPCache.lookups")

    /// A cache with `storage`.
    ///
    /// - Throws: ``RequestError/Code/fileIO`` when a disk cache's directory cannot be created or
    ///   cannot be trusted: an existing directory must be this user's own, not writable by its
    ///   group or others, and not a symbolic link. ``RequestError/Code/transportFailure`` when the
    ///   process has no OpenSSL libcrypto to key the cache with (libcurl built on another TLS
    ///   library, with no OpenSSL installed).
    public convenience init(_ storage: Storage) throws(RequestError) {
        try self.init(storage, clock: { Date() })
    }

    /// A cache with `storage` whose responses age by `clock` (tests move time on without waiting).
    convenience init(_ storage: Storage, clock: @escaping @Sendable () -> Date) throws(RequestError) {
        guard SHA256Hasher.isAvailable else {
            throw RequestError(.transportFailure, "an HTTP cache needs OpenSSL's libcrypto to key its entries, and this process has none")
        }
        let store: any CacheStore
        switch storage {
        case .memory(let limit): store = MemoryCacheStore(limit: max(0, limit))
        case .disk(let directory, let limit): store = try DiskCacheStore.shared(directory: directory, limit: max(0, limit))
        }
        self.init(storage, store: store, clock: clock)
    }

    /// A cache over `store`, a test's own (one whose reads wait, say), aged by `clock`; it
    /// reports its storage as memory of `limit` bytes.
    convenience init(store: any CacheStore, limit: Int, clock: @escaping @Sendable () -> Date) {
        self.init(.memory(limit: limit), store: store, clock: clock)
    }

    /// A cache described as `storage`, keeping its responses in `store`.
    private init(_ storage: Storage, store: any CacheStore, clock: @escaping @Sendable () -> Date) {
        self.storage = storage
        self.store = store
        now = clock
        switch storage {
        case .memory(let limit), .disk(_, let limit): maximumEntrySize = max(0, limit) / 8
        }
    }

    /// The bytes of the responses stored.
    public var currentSize: Int { store.totalSize }

    /// Removes every stored response.
    public func removeAll() {
        store.removeAll()
    }

    /// Removes the stored responses to `GET` requests for `url`: every variant, for everyone.
    public func removeResponses(for url: String) {
        store.remove(url: CacheRequest.key(url).url)
    }

    /// Returns once every response stored so far is on disk: call it before the process exits,
    /// as a disk cache writes in the background (a memory cache returns at once).
    public func flush() {
        store.flush()
    }
}
