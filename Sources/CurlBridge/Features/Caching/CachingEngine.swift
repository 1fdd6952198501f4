import Foundation
import HTTPTypes
import Synchronization

/// The engine of a transport with an ``HTTPCache``: it asks ``CacheLookup`` what to do with each
/// request, then answers from the cache, sends it to the engine beneath (curl's or a stub's) —
/// made conditional when it revalidates — or fails it, and stores and invalidates what
/// ``CacheAdmission`` allows when a transfer ends.
///
/// Everything above it — redirects, retries, sinks, progress, completion — sees a stored response
/// as a transfer like any other. A transport without a cache has no `CachingEngine`: its requests
/// cost nothing more.
///
/// The loop thread reads nothing from the store: a request that needs its stored variants waits
/// for them (a ``PendingCacheLookup``) while the cache's lookup queue reads them, and they come
/// back as work submitted to the loop. Writes only change the store's index (in memory) on the
/// loop; a disk store writes its files on its own queue. A lookup begun after a store returned
/// therefore sees what it stored. Confined to the loop, but for ``inFlightCount``; the loop's
/// work reaches it through a ``LoopBound``.
final class CachingEngine: TransferEngine {
    let cache: HTTPCache
    private let inner: any TransferEngine
    private unowned let loop: any RequestLoop
    /// Whose each request is, and under which trust.
    private let partitioner: CachePartitioner
    /// The requests the cache takes part in, by id.
    private var exchanges: [UInt64: CacheExchange] = [:]
    /// The requests waiting for their stored variants, by id.
    private var lookups: [UInt64: PendingCacheLookup] = [:]
    /// The number of the last lookup begun: an answer for a stopped lookup (whose id may have
    /// begun again) finds another number, and is dropped.
    private var lastLookupNumber: UInt64 = 0
    /// How many stored responses are being played.
    private let playing = Atomic<Int>(0)

    init(cache: HTTPCache, inner: any TransferEngine, loop: any RequestLoop, partitioner: CachePartitioner) {
        self.cache = cache
        self.inner = inner
        self.loop = loop
        self.partitioner = partitioner
    }

    var inFlightCount: Int { inner.inFlightCount + playing.load(ordering: .relaxed) }

    /// Busy while a transfer, a playback or a store lookup is under way: a request waiting for its
    /// lookup keeps a shutting-down loop polling (woken by the answer), not spinning.
    var isBusy: Bool { inner.isBusy || playing.load(ordering: .relaxed) > 0 || !lookups.isEmpty }

    /// This engine, for work handed to its loop.
    private var bound: LoopBound<CachingEngine> { LoopBound(self, on: loop) }

    func begin(_ prepared: PreparedRequest, id: UInt64, receiver: any TransferReceiver) {
        let request = partitioner.request(for: prepared)
        let now = cache.now()
        switch CacheLookup.start(request, now: now) {
        case .decided(let decision):
            perform(decision, id: id, request: request, prepared: prepared, receiver: receiver, now: now)
        case .needsVariants(let partition):
            lastLookupNumber += 1
            let number = lastLookupNumber
            lookups[id] = PendingCacheLookup(number: number, request: request, prepared: prepared, receiver: receiver, requestTime: now)
            let (store, url, bound) = (cache.store, request.url, bound)
            cache.lookupQueue.async {
                let variants = store.variants(of: url, partition: partition)
                bound.submit { $0.lookupAnswered(id, number: number, variants: variants) }
            }
        }
    }

    /// The stored variants of request `id`'s lookup `number` were read: decide, unless it was
    /// stopped meanwhile.
    private func lookupAnswered(_ id: UInt64, number: UInt64, variants: [StoredResponse]) {
        guard let lookup = lookups[id], lookup.number == number else { return }
        lookups[id] = nil
        let decision = CacheLookup.decide(lookup.request, stored: { variants }, now: lookup.requestTime)
        perform(decision, id: id, request: lookup.request, prepared: lookup.prepared, receiver: lookup.receiver, now: lookup.requestTime)
        if lookup.isPaused { pauseReceiving(id) }
    }

    /// Carries out `decision` for request `id`.
    private func perform(
        _ decision: CacheLookup, id: UInt64, request: CacheRequest, prepared: PreparedRequest, receiver: any TransferReceiver, now: Date
    ) {
        switch decision {
        case .bypass:
            if CacheAdmission.mayInvalidate(request.method) {
                forward(prepared, as: exchange(id, request, prepared, .invalidating, receiver, now))
            } else {
                inner.begin(prepared, id: id, receiver: receiver)
            }
        case .forward:
            let reporting = prepared.adding([], reportingSentCookies: partitioner.addsJarCookies(to: prepared))
            forward(reporting, as: exchange(id, request, reporting, .storing, receiver, now))
        case .validate(let stored, let conditions):
            let conditional = prepared.adding(conditions, reportingSentCookies: partitioner.addsJarCookies(to: prepared))
            forward(conditional, as: exchange(id, request, conditional, .validating(stored), receiver, now))
        case .serve(let stored, let status):
            let served = exchange(id, request, prepared, .serving, receiver, now)
            serve(stored, fields: CacheReplies.servedFields(stored, now: now), metrics: .fromCache(status), on: served)
        case .notModified(let stored):
            let served = exchange(id, request, prepared, .serving, receiver, now)
            let notModified = CacheReplies.notModified(stored, now: now)
            serve(notModified, fields: notModified.headerFields, metrics: .fromCache(.hit), on: served)
        case .unavailable(.policy):
            receiver.transferEnded(TransferEnd(result: .failure(RequestError(
                .notCached, "the cache holds no response for the request, and its policy forbids sending it",
                method: prepared.method, url: prepared.url))))
        case .unavailable(.onlyIfCached):
            let served = exchange(id, request, prepared, .serving, receiver, now)
            let timeout = CacheReplies.gatewayTimeout(request, now: now)
            serve(timeout, fields: timeout.headerFields, metrics: .fromCache(.miss), on: served)
        }
    }

    private func exchange(
        _ id: UInt64, _ request: CacheRequest, _ prepared: PreparedRequest, _ role: CacheExchange.Role,
        _ receiver: any TransferReceiver, _ now: Date
    ) -> CacheExchange {
        let exchange = CacheExchange(
            engine: self, id: id, request: request, prepared: prepared, role: role, downstream: receiver, requestTime: now)
        exchanges[id] = exchange
        return exchange
    }

    private func forward(_ prepared: PreparedRequest, as exchange: CacheExchange) {
        inner.begin(prepared, id: exchange.id, receiver: exchange)
    }

    /// Plays `stored` with `fields` to the exchange's receiver, from the loop's next turn (as a
    /// transfer's events come), and ends it with `metrics`.
    private func serve(_ stored: StoredResponse, fields: HTTPFields, metrics: TransferMetrics, on exchange: CacheExchange) {
        exchange.play = CachePlay(stored, fields: fields, metrics: metrics, answering: exchange.prepared)
        playing.add(1, ordering: .relaxed)
        let (id, identity) = (exchange.id, ObjectIdentifier(exchange))
        bound.submit { engine in
            // Unless it was stopped meanwhile (and the id perhaps begun again).
            guard let exchange = engine.exchanges[id], ObjectIdentifier(exchange) == identity, exchange.play != nil else {
                return
            }
            engine.play(exchange)
        }
    }

    private func play(_ exchange: CacheExchange) {
        guard !exchange.play!.isPaused else { return }
        switch exchange.play!.playback.play(to: exchange.downstream) {
        case .delivered: finishPlaying(exchange, .success(exchange.play!.response))
        case .paused: exchange.play!.isPaused = true
        case .refused(let error): finishPlaying(exchange, .failure(error))
        }
    }

    private func finishPlaying(_ exchange: CacheExchange, _ result: Result<Response, RequestError>) {
        guard removePlaying(exchange.id) != nil else { return }
        exchange.downstream.transferEnded(TransferEnd(result: result, finalProgress: exchange.play!.progress(wanted: exchange.wantsProgress)))
    }

    /// Takes a played exchange out of the table.
    private func removePlaying(_ id: UInt64) -> CacheExchange? {
        guard let exchange = exchanges[id], exchange.play != nil else { return nil }
        exchanges[id] = nil
        playing.subtract(1, ordering: .relaxed)
        return exchange
    }

    /// A transfer the cache took part in ended: revalidated, stored, invalidated, or passed on.
    func exchangeEnded(_ exchange: CacheExchange, _ end: TransferEnd) {
        guard exchanges[exchange.id] === exchange else { return }
        guard case .success(var response) = end.result else {
            exchanges[exchange.id] = nil
            exchange.downstream.transferEnded(end)
            return
        }
        let responseTime = exchange.responseTime ?? cache.now()
        let isOwnPartition = partitioner.sentAsLookedUp(
            exchange.request, reportsSentCookies: exchange.prepared.reportsSentCookies, sentCookieLines: end.sentCookieLines)
        if exchange.isNotModified, case .validating(let stored) = exchange.role {
            let revalidated = CacheReplies.revalidated(stored, by: response, requestTime: exchange.requestTime, responseTime: responseTime)
            // Sent with other cookies than it was looked up with: the 304 answers this request
            // (it holds what its guessed partition holds), but updates nobody's entry.
            if isOwnPartition { cache.store.store(revalidated.stored, persistent: !exchange.request.identity.carriesPassword) }
            serve(revalidated.stored, fields: revalidated.fields, metrics: revalidated.metrics, on: exchange)
            return
        }
        exchanges[exchange.id] = nil
        let status = response.status.code
        for url in CacheAdmission.invalidated(method: exchange.request.method, url: exchange.request.url, status: status, fields: response.headerFields) {
            cache.store.remove(url: url)
        }
        switch exchange.role {
        case .storing, .validating:
            response.metrics.cacheStatus = .miss
            if let body = exchange.recorded, let partition = exchange.request.partition, isOwnPartition,
               CacheAdmission.mayStore(exchange.request, status: status, fields: response.headerFields) {
                let fields = CacheAdmission.storable(response.headerFields)
                cache.store.store(
                    StoredResponse(
                        url: exchange.request.url, partition: partition, status: response.status, headerFields: fields,
                        httpVersion: response.httpVersion, body: body, requestTime: exchange.requestTime, responseTime: responseTime,
                        variant: exchange.request.variant(of: StoredResponse.varyNames(fields))),
                    persistent: !exchange.request.identity.carriesPassword)
            }
        case .invalidating, .serving:
            break
        }
        var passed = end
        passed.result = .success(response)
        exchange.downstream.transferEnded(passed)
    }

    func stop(_ id: UInt64) -> TransferProgress? {
        // Waiting for its lookup: its answer finds nothing, and nothing was received.
        if lookups.removeValue(forKey: id) != nil { return nil }
        if let exchange = removePlaying(id) { return exchange.play!.progress(wanted: exchange.wantsProgress) }
        exchanges[id] = nil
        return inner.stop(id)
    }

    func pauseReceiving(_ id: UInt64) {
        if lookups[id] != nil {
            lookups[id]?.isPaused = true
        } else if let exchange = exchanges[id], exchange.play != nil {
            exchange.play!.isPaused = true
        } else {
            inner.pauseReceiving(id)
        }
    }

    func resumeReceiving(_ id: UInt64) {
        if lookups[id] != nil {
            lookups[id]?.isPaused = false
        } else if let exchange = exchanges[id], exchange.play != nil {
            exchange.play!.isPaused = false
            play(exchange)
        } else {
            inner.resumeReceiving(id)
        }
    }

    func resumeSending(_ id: UInt64) {
        inner.resumeSending(id)
    }

    func expire(at now: UInt64) -> UInt64? {
        inner.expire(at: now)
    }

    func failAll(_ error: RequestError) {
        inner.failAll(error)
        let waiting = lookups.values
        lookups = [:]
        for lookup in waiting { lookup.receiver.transferEnded(TransferEnd(result: .failure(error))) }
        for exchange in exchanges.values where exchange.play != nil {
            finishPlaying(exchange, .failure(error))
        }
    }

    func rest(closed: Bool) {
        inner.rest(closed: closed)
    }
}

extension PreparedRequest {
    /// This request with `fields` added to its header lines (a revalidation's conditions), and
    /// reporting the cookies curl sent when `reportingSentCookies`.
    func adding(_ fields: [HTTPField], reportingSentCookies: Bool) -> PreparedRequest {
        guard !fields.isEmpty || reportingSentCookies != reportsSentCookies else { return self }
        return PreparedRequest(
            method: method, url: url, headerLines: headerLines + fields.map(Request.curlHeaderLine), body: body,
            connectTimeoutMilliseconds: connectTimeoutMilliseconds, idleTimeoutNanoseconds: idleTimeoutNanoseconds,
            totalTimeoutMilliseconds: totalTimeoutMilliseconds, maximumBodySize: maximumBodySize,
            maximumHeaderSize: maximumHeaderSize, isIdempotent: isIdempotent, accept: accept, usesCookieJar: usesCookieJar,
            authentication: authentication, trace: trace, pinning: pinning, cachePolicy: cachePolicy,
            reportsSentCookies: reportingSentCookies)
    }
}
