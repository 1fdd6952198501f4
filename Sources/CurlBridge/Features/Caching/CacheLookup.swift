#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// What the cache does with a request, decided from the request, what is stored for its URL and
/// the time (RFC 9111 §4): a pure value, unit-tested without I/O; ``CachingEngine`` performs it.
enum CacheLookup: Equatable {
    /// Send it as it is; store nothing of its answer (`no-store`, an unsafe method, a range, a
    /// caller's conditional the cache cannot answer).
    case bypass
    /// Send it; its answer may be stored.
    case forward
    /// Answer with the stored response, without sending anything.
    case serve(StoredResponse, CacheStatus)
    /// Answer the caller's own conditional request with `304 Not Modified`: the stored response
    /// is fresh and satisfies its validators.
    case notModified(StoredResponse)
    /// Send it with these conditions on the stored response; a `304` is answered with it.
    case validate(StoredResponse, conditions: [HTTPField])
    /// Nothing usable is stored and the request may not be sent.
    case unavailable(Unavailable)

    /// Why a request that may not be sent could not be answered.
    enum Unavailable: Equatable {
        /// Its policy is ``CachePolicy/returnCacheDataDontLoad``: a ``RequestError/Code/notCached``.
        case policy
        /// It asked `Cache-Control: only-if-cached`: a `504 Gateway Timeout`, as §5.2.1.7 says.
        case onlyIfCached
    }

    /// Where deciding about a request begins: decided already, or waiting for what is stored.
    enum Start: Equatable {
        /// Decided without anything stored (no partition, an unsafe method, `no-store`, a reload).
        case decided(CacheLookup)
        /// The decision needs the stored variants of the request's URL in `partition`: read them
        /// (off the loop) and give them to ``decide(_:stored:now:)``.
        case needsVariants(partition: String)
    }

    /// Whether `request` at `now` can be decided without reading the store: asks
    /// ``decide(_:stored:now:)`` itself (a pure function) and notes whether it asked for what is
    /// stored, so that the rule of when the store is read exists once.
    static func start(_ request: CacheRequest, now: Date) -> Start {
        var needsStored = false
        let decision = decide(request, stored: { needsStored = true; return [] }, now: now)
        guard needsStored, let partition = request.partition else { return .decided(decision) }
        return .needsVariants(partition: partition)
    }

    /// The decision for `request`, given what is `stored` for its URL and partition (its
    /// variants, most recently used first; asked only when the request may use them) at `now`.
    /// A request whose partition cannot be told is sent as it is — but under
    /// ``CachePolicy/returnCacheDataDontLoad``, which never sends a request (as without a
    /// cache): what would be sent is ``Unavailable/policy``.
    static func decide(_ request: CacheRequest, stored: () -> [StoredResponse], now: Date) -> CacheLookup {
        let decision = decideSending(request, stored: stored, now: now)
        switch decision {
        case .bypass, .forward, .validate:
            return request.policy == .returnCacheDataDontLoad ? .unavailable(.policy) : decision
        case .serve, .notModified, .unavailable:
            return decision
        }
    }

    private static func decideSending(_ request: CacheRequest, stored: () -> [StoredResponse], now: Date) -> CacheLookup {
        guard request.partition != nil, request.method == .get || request.method == .head, !request.isPartialOrPrecondition else {
            return .bypass
        }
        let decision = decideWithoutCallerValidators(request, stored: stored, now: now)
        guard request.hasValidators else { return decision }
        // The caller's own conditional: answered from a fresh response, else sent as it is (or,
        // when it may not be sent, answered in full by the stored response).
        if case .serve(let entry, .hit) = decision, request.isNotModified(entry) { return .notModified(entry) }
        if case .unavailable = decision { return decision }
        if request.policy == .returnCacheDataDontLoad, case .serve = decision { return decision }
        return .bypass
    }

    private static func decideWithoutCallerValidators(_ request: CacheRequest, stored: () -> [StoredResponse], now: Date) -> CacheLookup {
        let control = request.cacheControl
        if control.noStore { return .bypass }
        if request.policy == .reloadIgnoringCacheData { return .forward }
        guard let entry = stored().first(where: { $0.matches(request) }) else {
            if request.policy == .returnCacheDataDontLoad { return .unavailable(.policy) }
            return control.onlyIfCached ? .unavailable(.onlyIfCached) : .forward
        }
        let freshness = CacheFreshness(of: entry, now: now)
        switch request.policy {
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
            return .serve(entry, freshness.isFresh ? .hit : .staleServed)
        case .reloadRevalidatingCacheData:
            return validation(of: entry)
        case .useProtocolCachePolicy, .reloadIgnoringCacheData:
            break
        }
        let stored = CacheControl(entry.headerFields)
        let mustValidate = control.noCache || stored.noCache
            // `max-age=0` is the reload idiom: revalidate, even a response not yet a second old.
            || control.maxAge.map { $0 == 0 || freshness.age > TimeInterval($0) } == true
            || control.minFresh.map { freshness.lifetime - freshness.age < TimeInterval($0) } == true
        if !mustValidate {
            if freshness.isFresh { return .serve(entry, .hit) }
            if !stored.mustRevalidate, let maxStale = control.maxStale,
               maxStale.map({ freshness.staleness <= TimeInterval($0) }) ?? true {
                return .serve(entry, .staleServed)
            }
        }
        if control.onlyIfCached { return .unavailable(.onlyIfCached) }
        return validation(of: entry)
    }

    /// Revalidating `entry` with its validators, or sending the request afresh when it has none.
    private static func validation(of entry: StoredResponse) -> CacheLookup {
        var conditions: [HTTPField] = []
        if let etag = entry.headerFields[.eTag] {
            conditions.append(HTTPField(name: .ifNoneMatch, value: etag))
        }
        if let lastModified = entry.headerFields[HTTPField.Name("Last-Modified")!] {
            conditions.append(HTTPField(name: .ifModifiedSince, value: lastModified))
        }
        return conditions.isEmpty ? .forward : .validate(entry, conditions: conditions)
    }
}
