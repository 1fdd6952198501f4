#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// One request's part in the cache, from its lookup to the end it passes on, as a value: it
/// decides, from ``CacheLookup`` and ``CacheAdmission``, whether the request is sent, sent with
/// conditions, played from the cache, or passed beneath untouched; what of a transfer the
/// receiver sees; what is recorded, stored and invalidated at the end; and what a pause, resume,
/// stop or failure does in each phase. It performs nothing: it has no store, clock, loop or
/// partitioner — time and stored variants come with the events, and ``CachingEngine`` performs
/// the ``Action`` each returns. Unit-tested over every (phase, event) pair without I/O.
///
/// The trust and privacy rules stay where they are made: the partition comes built in
/// ``request`` and is never computed here, and whether a transfer was sent as it was looked up
/// (``CachePartitioner/sentAsLookedUp(_:reportsSentCookies:sentCookieLines:)``) comes with its end.
struct CacheExchangeState {
    /// The request as the cache sees it (partition, identity, method, URL), built once by ``CachePartitioner``.
    let request: CacheRequest
    /// The request as the caller prepared it.
    let prepared: PreparedRequest
    /// When it began, by the cache's clock: the moment every decision and stored time uses, even
    /// when the lookup is answered later.
    let requestTime: Date
    /// Whether curl adds cookies of its own to it: a send then reports the cookies it sent.
    let addsJarCookies: Bool
    /// The largest body recorded to be stored (``HTTPCache/maximumEntrySize``).
    let maximumRecordedSize: Int
    /// Where the request is; like ``recording`` and ``responseTime``, written only by the events.
    var phase: Phase = .finished {
        // Only a response that may be stored is recorded.
        didSet { if !answerMayBeStored { recording = .off } }
    }
    /// The body copied while it may be stored. It lives beside ``phase``, not in its payload, so
    /// that a piece appends in place: no payload is bound and no stored response retained per
    /// piece. `.off` unless the phase is storing or validating.
    var recording: Recording = .off
    /// When the last final head arrived, by the cache's clock.
    var responseTime: Date?

    /// Where the request is in the cache.
    enum Phase {
        /// Waiting for the stored variants, read off the loop; `paused`: the receiver paused meanwhile.
        case lookingUp(paused: Bool)
        /// Sent beneath (reporting its cookies when the jar adds some); its answer may be stored.
        case storing
        /// Sent with conditions on the stored response. A `304` head makes it
        /// ``absorbingNotModified(_:)``; any other head keeps it validating (a challenged
        /// credential's `401` may come first), and a storable answer replaces the stored one.
        case validating(StoredResponse)
        /// A `304` revalidated the stored response: head, body and progress are hidden until the
        /// transfer's end, which plays the stored response, updated.
        case absorbingNotModified(StoredResponse)
        /// An unsafe method sent as it is: its success makes stored responses invalid.
        case invalidating
        /// A stored, synthesised or revalidated response played without a transfer.
        case playing(CachePlay)
        /// Nothing more: the end was passed on, or the request was handed beneath untouched.
        case finished
    }

    /// The copy of a body that may be stored.
    enum Recording {
        case off
        /// The body taken so far.
        case on(Data)
    }

    /// What ``CachingEngine`` does for an event.
    enum Action {
        /// Read the request's stored variants in `partition` off the loop, then answer ``lookupAnswered(_:)``.
        case readVariants(partition: String)
        /// Begin the transfer beneath with this receiving it, then pause it if `paused`.
        case send(PreparedRequest, paused: Bool)
        /// Begin the transfer beneath with the request's own receiver (then pause it if
        /// `paused`): the cache takes no part.
        case passThrough(PreparedRequest, paused: Bool)
        /// Pause, resume or stop the transfer beneath.
        case pauseBeneath, resumeBeneath, stopBeneath
        /// A stop answered without anything beneath: the progress made.
        case stopped(TransferProgress?)
        /// Play as work submitted to the loop (later in this turn or in the next, never inside the
        /// current call), as a transfer's events come.
        case schedulePlay
        /// Play now: the receiver resumed.
        case playNow
        /// Pass this end to the request's receiver, once the exchange has left the engine's table.
        case end(TransferEnd)
    }

    /// What a transfer's end does, in this order: invalidate, store, then ``next`` — all before
    /// the receiver hears of it, so that a request it begins looks up what was stored.
    struct Ending {
        var invalidated: [String] = []
        var stored: StoredResponse?
        /// Whether ``stored`` may be written to disk: not when the request carries a password.
        var persistent = true
        /// ``Action/end(_:)`` or ``Action/schedulePlay``.
        var next: Action
    }

    /// A request not yet begun (phase ``Phase/finished`` until ``begin()``).
    init(request: CacheRequest, prepared: PreparedRequest, requestTime: Date, addsJarCookies: Bool, maximumRecordedSize: Int) {
        self.request = request
        self.prepared = prepared
        self.requestTime = requestTime
        self.addsJarCookies = addsJarCookies
        self.maximumRecordedSize = maximumRecordedSize
    }

    /// Waiting for the stored variants (counted by the engine as busy).
    var isLookingUp: Bool {
        if case .lookingUp = phase { true } else { false }
    }

    /// Playing a response without a transfer (counted by the engine as in flight).
    var isPlaying: Bool {
        if case .playing = phase { true } else { false }
    }

    /// Nothing more comes of it: the engine takes the exchange out of its table.
    var isFinished: Bool {
        if case .finished = phase { true } else { false }
    }

    /// Whether the answer of the transfer sent may be stored: storing or validating.
    var answerMayBeStored: Bool {
        switch phase {
        case .storing, .validating: true
        case .lookingUp, .absorbingNotModified, .invalidating, .playing, .finished: false
        }
    }

    // MARK: Deciding

    /// Begins: decided at once, or waiting for the stored variants.
    mutating func begin() -> Action {
        switch CacheLookup.start(request, now: requestTime) {
        case .decided(let decision):
            return decided(decision, paused: false)
        case .needsVariants(let partition):
            phase = .lookingUp(paused: false)
            return .readVariants(partition: partition)
        }
    }

    /// The stored variants came: decides with them, at the request's time.
    mutating func lookupAnswered(_ variants: [StoredResponse]) -> Action? {
        guard case .lookingUp(let paused) = phase else { return nil }
        return decided(CacheLookup.decide(request, stored: { variants }, now: requestTime), paused: paused)
    }

    private mutating func decided(_ decision: CacheLookup, paused: Bool) -> Action {
        switch decision {
        case .bypass where CacheAdmission.mayInvalidate(request.method):
            phase = .invalidating
            return .send(prepared, paused: paused)
        case .bypass:
            phase = .finished
            return .passThrough(prepared, paused: paused)
        case .forward:
            phase = .storing
            return .send(prepared.adding([], reportingSentCookies: addsJarCookies), paused: paused)
        case .validate(let stored, let conditions):
            phase = .validating(stored)
            return .send(prepared.adding(conditions, reportingSentCookies: addsJarCookies), paused: paused)
        case .serve(let stored, let status):
            return play(stored, fields: CacheReplies.servedFields(stored, now: requestTime), metrics: .fromCache(status), paused: paused)
        case .notModified(let stored):
            let reply = CacheReplies.notModified(stored, now: requestTime)
            return play(reply, fields: reply.headerFields, metrics: .fromCache(.hit), paused: paused)
        case .unavailable(.policy):
            phase = .finished
            return .end(TransferEnd(result: .failure(RequestError(
                .notCached, "the cache holds no response for the request, and its policy forbids sending it",
                method: prepared.method, url: prepared.url))))
        case .unavailable(.onlyIfCached):
            let reply = CacheReplies.gatewayTimeout(request, now: requestTime)
            return play(reply, fields: reply.headerFields, metrics: .fromCache(.miss), paused: paused)
        }
    }

    private mutating func play(_ stored: StoredResponse, fields: HTTPFields, metrics: TransferMetrics, paused: Bool) -> Action {
        var play = CachePlay(stored, fields: fields, metrics: metrics, answering: prepared)
        play.isPaused = paused
        phase = .playing(play)
        return .schedulePlay
    }
}
