#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// The engine of a transport with an ``HTTPCache``: mechanism only. Each request the cache takes
/// part in is a ``CacheExchange`` whose ``CacheExchangeState`` decides — look up, send, validate,
/// absorb a `304`, play, store, invalidate — and this engine performs what it returns: reads the
/// stored variants off the loop, begins, pauses and stops transfers beneath (curl's or a stub's),
/// plays stored responses on the loop's turns, and writes the store.
///
/// Everything above it — redirects, retries, sinks, progress, completion — sees a stored response
/// as a transfer like any other. A transport without a cache has no `CachingEngine`: its requests
/// cost nothing more.
///
/// The loop thread reads nothing from the store: a request that needs its stored variants waits
/// for them while the cache's lookup queue reads them, and they come back as work submitted to
/// the loop. Writes only change the store's index (in memory) on the loop; a disk store writes
/// its files on its own queue. A transfer's end writes the store before its receiver hears of
/// it, so a lookup begun from that end (a redirect's next hop, another request) sees what it
/// stored. Confined to the loop, but for its ``inFlight`` counter; the loop's work reaches it
/// through a ``LoopBound``.
final class CachingEngine: TransferEngine {
    let cache: HTTPCache
    private let inner: any TransferEngine
    private unowned let loop: any RequestLoop
    /// Whose each request is, and under which trust.
    private let partitioner: CachePartitioner
    /// The requests the cache takes part in, by id.
    private var exchanges: [UInt64: CacheExchange] = [:]
    /// The number of the last exchange begun: a lookup's answer or a play's turn for a stopped
    /// exchange (whose id may have begun again) finds another number, and is dropped.
    private var lastNumber: UInt64 = 0
    /// How many exchanges wait for their stored variants.
    private var pendingLookups = 0
    /// How many stored responses are being played (its own part), plus the inner engine's
    /// transfers in flight.
    let inFlight: TransferCounter
    /// This engine, for work handed to its loop (held weakly: work arriving after the engine went
    /// away finds nothing). Made once, as its box is an allocation.
    private lazy var bound = LoopBound(self, on: loop)

    init(cache: HTTPCache, inner: any TransferEngine, loop: any RequestLoop, partitioner: CachePartitioner) {
        self.cache = cache
        self.inner = inner
        self.loop = loop
        self.partitioner = partitioner
        inFlight = TransferCounter(adding: inner.inFlight)
    }

    /// Busy while a transfer, a playback or a store lookup is under way: a request waiting for its
    /// lookup keeps a shutting-down loop polling (woken by the answer), not spinning.
    var isBusy: Bool { inner.isBusy || inFlight.own > 0 || pendingLookups > 0 }

    func begin(_ prepared: PreparedRequest, id: UInt64, receiver: any TransferReceiver) {
        var state = CacheExchangeState(
            request: partitioner.request(for: prepared), prepared: prepared, requestTime: cache.now(),
            addsJarCookies: partitioner.addsJarCookies(to: prepared), maximumRecordedSize: cache.maximumEntrySize)
        let action = state.begin()
        guard !state.isFinished else {
            // Passed beneath untouched, or failed at once: no exchange, nothing more to cost.
            perform(action, id: id, downstream: receiver)
            return
        }
        lastNumber += 1
        let exchange = CacheExchange(engine: self, id: id, number: lastNumber, downstream: receiver, state: state)
        // An id begins again only once its exchange has left the table (a finished one leaves
        // before its end is passed on): an orphan would keep its counts, and shutdown, waiting.
        assert(exchanges[id] == nil, "request \(id) began in the cache while its exchange was under way")
        exchanges[id] = exchange
        if state.isLookingUp { pendingLookups += 1 }
        if state.isPlaying { inFlight.increment() }
        perform(action, on: exchange)
    }

    /// Applies an event to `exchange`'s state: keeps the lookup and play counts, and takes a
    /// finished exchange out of the table before anything it returns is performed (its receiver
    /// may begin the same id again).
    private func step<Outcome>(_ exchange: CacheExchange, _ event: (inout CacheExchangeState) -> Outcome) -> Outcome {
        let (wasLookingUp, wasPlaying) = (exchange.state.isLookingUp, exchange.state.isPlaying)
        let outcome = event(&exchange.state)
        let (isLookingUp, isPlaying) = (exchange.state.isLookingUp, exchange.state.isPlaying)
        if wasLookingUp != isLookingUp { pendingLookups += isLookingUp ? 1 : -1 }
        if wasPlaying != isPlaying {
            if isPlaying { inFlight.increment() } else { inFlight.decrement() }
        }
        if exchange.state.isFinished, exchanges[exchange.id] === exchange { exchanges[exchange.id] = nil }
        return outcome
    }

    /// Performs what `exchange`'s state returned.
    private func perform(_ action: CacheExchangeState.Action?, on exchange: CacheExchange) {
        switch action {
        case .readVariants(let partition)?:
            let (store, url, bound, id, number) = (cache.store, exchange.state.request.url, bound, exchange.id, exchange.number)
            cache.lookupQueue.async {
                let variants = store.variants(of: url, partition: partition)
                // Dropped when the loop is gone, and the lookup count with it.
                bound.submit { engine in
                    guard let exchange = engine.exchange(id, number) else { return }
                    engine.perform(engine.step(exchange) { $0.lookupAnswered(variants) }, on: exchange)
                }
            }
        case .send(let prepared, let paused)?:
            inner.begin(prepared, id: exchange.id, receiver: exchange)
            if paused { inner.pauseReceiving(exchange.id) }
        case .schedulePlay?:
            let (id, number) = (exchange.id, exchange.number)
            // Dropped when the loop is gone, and the play count with it.
            bound.submit { engine in
                guard let exchange = engine.exchange(id, number) else { return }
                engine.play(exchange)
            }
        case .playNow?:
            play(exchange)
        case .pauseBeneath?:
            inner.pauseReceiving(exchange.id)
        case .resumeBeneath?:
            inner.resumeReceiving(exchange.id)
        case .stopBeneath?, .stopped?:
            break  // answered by `stop`
        case .passThrough?, .end?:
            perform(action, id: exchange.id, downstream: exchange.downstream)
        case nil:
            break
        }
    }

    /// Performs an action that needs no exchange: a request passed beneath or ended.
    private func perform(_ action: CacheExchangeState.Action?, id: UInt64, downstream: any TransferReceiver) {
        switch action {
        case .passThrough(let prepared, let paused)?:
            inner.begin(prepared, id: id, receiver: downstream)
            if paused { inner.pauseReceiving(id) }
        case .end(let end)?:
            downstream.transferEnded(end)
        default:
            break
        }
    }

    /// Exchange `id`, unless it was stopped since `number` was given (and the id perhaps begun again).
    private func exchange(_ id: UInt64, _ number: UInt64) -> CacheExchange? {
        guard let exchange = exchanges[id], exchange.number == number else { return nil }
        return exchange
    }

    /// Plays `exchange`'s response as far as its receiver takes it, on a copy (see
    /// ``CacheExchangeState/playable``).
    private func play(_ exchange: CacheExchange) {
        guard var play = exchange.state.playable else { return }
        let played = play.playback.play(to: exchange.downstream)
        perform(step(exchange) { $0.played(play, played, wantsProgress: exchange.wantsProgress) }, on: exchange)
    }

    /// A transfer the cache took part in ended: invalidates and stores what its state says, then
    /// plays the revalidated response or passes the end on.
    func exchangeEnded(_ exchange: CacheExchange, _ end: TransferEnd) {
        guard exchanges[exchange.id] === exchange else { return }
        // The sends that may store report their cookies exactly when the jar adds some.
        let sentAsLookedUp = if case .success = end.result {
            partitioner.sentAsLookedUp(exchange.state.request, reportsSentCookies: exchange.state.addsJarCookies, sentCookieLines: end.sentCookieLines)
        } else {
            false
        }
        guard let ending = step(exchange, { $0.transferEnded(end, sentAsLookedUp: sentAsLookedUp, now: cache.now) }) else { return }
        for url in ending.invalidated { cache.store.remove(url: url) }
        if let stored = ending.stored { cache.store.store(stored, persistent: ending.persistent) }
        perform(ending.next, on: exchange)
    }

    func stop(_ id: UInt64) -> TransferProgress? {
        guard let exchange = exchanges[id] else { return inner.stop(id) }
        let action = step(exchange) { $0.stopAsked(wantsProgress: exchange.wantsProgress) }
        if case .stopped(let progress)? = action { return progress }
        return inner.stop(id)
    }

    func pauseReceiving(_ id: UInt64) {
        guard let exchange = exchanges[id] else { return inner.pauseReceiving(id) }
        perform(step(exchange) { $0.pauseAsked() }, on: exchange)
    }

    func resumeReceiving(_ id: UInt64) {
        guard let exchange = exchanges[id] else { return inner.resumeReceiving(id) }
        perform(step(exchange) { $0.resumeAsked() }, on: exchange)
    }

    func resumeSending(_ id: UInt64) {
        inner.resumeSending(id)
    }

    func expire(at now: UInt64) -> UInt64? {
        inner.expire(at: now)
    }

    /// Ends every request: the transfers beneath first (each through its end), then the lookups,
    /// then the plays — each out of the table before its receiver hears of it.
    func failAll(_ error: RequestError) {
        inner.failAll(error)
        let remaining = Array(exchanges.values)
        for exchange in remaining where exchange.state.isLookingUp {
            perform(step(exchange) { $0.loopFailed(error, wantsProgress: exchange.wantsProgress) }, on: exchange)
        }
        for exchange in remaining where exchange.state.isPlaying {
            perform(step(exchange) { $0.loopFailed(error, wantsProgress: exchange.wantsProgress) }, on: exchange)
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
            method: method, url: url, usesTLS: usesTLS, headerLines: headerLines + fields.map(Request.curlHeaderLine), body: body,
            timeLimits: timeLimits, maximumBodySize: maximumBodySize,
            maximumHeaderSize: maximumHeaderSize, isIdempotent: isIdempotent, accept: accept, usesCookieJar: usesCookieJar,
            authentication: authentication, trace: trace, pinning: pinning, cachePolicy: cachePolicy,
            reportsSentCookies: reportingSentCookies)
    }
}
