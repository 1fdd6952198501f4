@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// Every event in every phase of ``CacheExchangeState``, the impossible pairs included (a head
/// while looking up, a late answer after the send, a play turn for a transfer): the phase it
/// leads to, what the receiver sees of a transfer's event, and the actions it returns, with no
/// I/O. A request for `http://example/a` in partition `p`; a fresh and a stale stored response of
/// two play pieces; 16 bytes may be recorded.
@Suite("Cache exchange state: every (state, event) pair")
struct CacheExchangeStateTableTests {
    private typealias F = CacheExchangeFixture

    /// The states, each reached from `begin()` by real events.
    enum StateName: String, CaseIterable, CustomStringConvertible {
        case lookingUp, lookingUpPaused, storing, storingRec, validating, validatingRec, absorbing304, invalidating
        case playScheduled, playScheduledPaused, playPaused, replayScheduled, finished

        var description: String { rawValue }
    }

    /// The events, each applied as ``CachingEngine`` and ``CacheExchange`` would.
    enum Event: String, CaseIterable, CustomStringConvertible {
        case answerMiss, answerFresh, answerStale, head200, head200Large, head304, piece, bigPiece, piecePaused, progress
        case end, endForeign, endFailure, playTurn, playTurnPausing, pause, resume, stop, failAll

        var description: String { rawValue }

        /// Applies the event; a head, piece or progress event's route (`pass miss`, `pass`,
        /// `hide`) is returned beside the actions' names.
        func apply(to state: inout CacheExchangeState) -> (actions: [String], route: String?) {
            switch self {
            case .answerMiss: return (names(state.lookupAnswered([])), nil)
            case .answerFresh: return (names(state.lookupAnswered([F.stored(age: 10)])), nil)
            case .answerStale: return (names(state.lookupAnswered([F.stored(age: 120)])), nil)
            case .head200: return ([], headRoute(&state, 200, 8))
            case .head200Large: return ([], headRoute(&state, 200, 17))
            case .head304: return ([], headRoute(&state, 304, nil))
            case .piece: return ([], pieceRoute(&state, 4, .accept))
            case .bigPiece: return ([], pieceRoute(&state, 17, .accept))
            case .piecePaused: return ([], pieceRoute(&state, 4, .pause))
            case .progress: return ([], state.hidesResponse ? "hide" : "pass")
            case .end, .endForeign:
                let fields: HTTPFields = [.cacheControl: "max-age=60", .eTag: "\"v2\"", .setCookie: "s=1"]
                let end = TransferEnd(result: .success(F.response(.ok, fields, method: state.request.method)))
                return (names(state.transferEnded(end, sentAsLookedUp: self == .end, now: { F.now + 1 })), nil)
            case .endFailure:
                let end = TransferEnd(result: .failure(RequestError(.transportFailure, "the connection broke")))
                return (names(state.transferEnded(end, sentAsLookedUp: true, now: { F.now + 1 })), nil)
            case .playTurn: return (Self.playTurn(&state, RecordingReceiver()), nil)
            case .playTurnPausing:
                let receiver = RecordingReceiver()
                receiver.verdicts = [.pause]
                return (Self.playTurn(&state, receiver), nil)
            case .pause: return (names(state.pauseAsked()), nil)
            case .resume:
                // The engine plays at once when a resume says so.
                let action = state.resumeAsked()
                guard case .playNow? = action else { return (names(action), nil) }
                return (names(action) + Self.playTurn(&state, RecordingReceiver()), nil)
            case .stop: return (names(state.stopAsked(wantsProgress: true)), nil)
            case .failAll: return (names(state.loopFailed(RequestError(.transportFailure, "the loop failed"), wantsProgress: true)), nil)
            }
        }

        private func headRoute(_ state: inout CacheExchangeState, _ status: Int, _ declared: Int64?) -> String {
            guard state.headArrived(status: status, declaredLength: declared, at: F.now) else { return "hide" }
            return state.headCacheStatus.map { "pass \($0)" } ?? "pass"
        }

        private func pieceRoute(_ state: inout CacheExchangeState, _ count: Int, _ verdict: BodyChunkVerdict) -> String {
            guard !state.hidesResponse else { return "hide" }
            if case .accept = verdict { Data(repeating: 1, count: count).withUnsafeBytes { state.pieceTaken($0) } }
            return "pass"
        }

        /// The engine's play: on a copy, then given back.
        static func playTurn(_ state: inout CacheExchangeState, _ receiver: RecordingReceiver) -> [String] {
            guard var play = state.playable else { return [] }
            receiver.wantsProgress = true
            let step = play.playback.play(to: receiver)
            return state.played(play, step, wantsProgress: true).map { [name($0)] } ?? []
        }

        private func names(_ action: CacheExchangeState.Action?) -> [String] {
            action.map { [Self.name($0)] } ?? []
        }

        private func names(_ ending: CacheExchangeState.Ending?) -> [String] {
            guard let ending else { return [] }
            return ending.invalidated.map { "invalidate \($0)" }
                + (ending.stored.map { ["store \($0.status.code) \($0.headerFields[.eTag] ?? "-")\(ending.persistent ? "" : " mem")"] } ?? [])
                + [Self.name(ending.next)]
        }

        static func name(_ action: CacheExchangeState.Action) -> String {
            switch action {
            case .readVariants(let partition): return "read \(partition)"
            case .send(let prepared, let paused), .passThrough(let prepared, let paused):
                let verb = if case .send = action { "send" } else { "pass" }
                let conditional = prepared.headerLines.contains { $0.lowercased().hasPrefix("if-none-match") } ? " cond" : ""
                return verb + conditional + (paused ? " paused" : "")
            case .pauseBeneath: return "pauseBeneath"
            case .resumeBeneath: return "resumeBeneath"
            case .stopBeneath: return "stopBeneath"
            case .stopped(let progress): return "stopped \(progress.map(Self.fraction) ?? "nil")"
            case .schedulePlay: return "schedulePlay"
            case .playNow: return "playNow"
            case .end(let end):
                let progress = end.finalProgress.map { " " + Self.fraction($0) } ?? ""
                switch end.result {
                case .success(let response): return "end \(response.status.code) \(response.metrics.cacheStatus)\(progress)"
                case .failure: return "end failure\(progress)"
                }
            }
        }

        static func fraction(_ progress: TransferProgress) -> String {
            "\(progress.bytesReceived)/\(progress.expectedBytesToReceive ?? -1)"
        }
    }

    /// A GET (or POST) for the fixture's URL, as `CachingEngine.begin` builds it, 16 bytes recordable.
    static func fresh(_ method: HTTPRequest.Method = .get) -> CacheExchangeState {
        let prepared = F.prepared(method == .get ? .get(F.url) : .post(F.url))
        return CacheExchangeState(
            request: F.request(prepared), prepared: prepared, requestTime: F.now, addsJarCookies: false, maximumRecordedSize: 16)
    }

    /// A state brought into `name` by real events.
    static func state(_ name: StateName) -> CacheExchangeState {
        var state = fresh(name == .invalidating ? .post : .get)
        _ = state.begin()
        let apply = { (events: [Event]) in for event in events { _ = event.apply(to: &state) } }
        switch name {
        case .lookingUp, .invalidating: break
        case .lookingUpPaused: apply([.pause])
        case .storing: apply([.answerMiss])
        case .storingRec: apply([.answerMiss, .head200, .piece])
        case .validating: apply([.answerStale])
        case .validatingRec: apply([.answerStale, .head200, .piece])
        case .absorbing304: apply([.answerStale, .head304])
        case .playScheduled: apply([.answerFresh])
        case .playScheduledPaused: apply([.answerFresh, .pause])
        case .playPaused:
            apply([.answerFresh])
            let receiver = RecordingReceiver()
            receiver.verdicts = [.accept, .pause]
            _ = Event.playTurn(&state, receiver)
        case .replayScheduled: apply([.answerStale, .head304, .end])
        case .finished: apply([.answerMiss, .endFailure])
        }
        return state
    }

    /// The state as a line: its phase, what is recorded, where a play is.
    static func snapshot(_ state: CacheExchangeState) -> String {
        let recorded = switch state.recording {
        case .off: "off"
        case .on(let body): "\(body.count)B"
        }
        switch state.phase {
        case .lookingUp(let paused): return paused ? "lookingUp paused" : "lookingUp"
        case .storing: return "storing \(recorded)"
        case .validating: return "validating \(recorded)"
        case .absorbingNotModified: return "absorbing304 \(recorded)"
        case .invalidating: return "invalidating \(recorded)"
        case .playing(let play):
            let started = Mirror(reflecting: play.playback).descendant("headPlayed") as? Bool == true
            return "playing \(play.playback.delivered)/\(play.playback.body.count)\(started ? " started" : "")\(play.isPaused ? " paused" : "")"
                + " \(play.response.metrics.cacheStatus) \(recorded)"
        case .finished: return "finished \(recorded)"
        }
    }

    /// What an event does in a state.
    struct Expected: CustomStringConvertible {
        var state: String
        var actions: [String] = []
        var route: String?

        var description: String { "\(state) \(actions) \(route ?? "")" }
    }

    static let size = F.body.count
    static let snapshots: [StateName: String] = [
        .lookingUp: "lookingUp", .lookingUpPaused: "lookingUp paused", .storing: "storing off", .storingRec: "storing 4B",
        .validating: "validating off", .validatingRec: "validating 4B", .absorbing304: "absorbing304 off", .invalidating: "invalidating off",
        .playScheduled: "playing 0/\(size) hit off", .playScheduledPaused: "playing 0/\(size) paused hit off",
        .playPaused: "playing 65536/\(size) started paused hit off", .replayScheduled: "playing 0/\(size) revalidated off",
        .finished: "finished off",
    ]

    /// Nothing changes, nothing is done, and the receiver sees nothing of a transfer's event.
    static func ignored(_ state: StateName, _ event: Event) -> Expected {
        let transferEvents: [Event] = [.head200, .head200Large, .head304, .piece, .bigPiece, .piecePaused, .progress]
        return Expected(state: snapshots[state]!, route: transferEvents.contains(event) ? "hide" : nil)
    }

    /// The expected outcome of `event` in `state`.
    static func expected(_ state: StateName, _ event: Event) -> Expected {
        switch state {
        case .lookingUp, .lookingUpPaused: lookingUp(state, event, paused: state == .lookingUpPaused)
        case .storing, .storingRec, .validating, .validatingRec, .invalidating: forwarding(state, event)
        case .absorbing304: absorbing(event)
        case .playScheduled, .playScheduledPaused, .playPaused, .replayScheduled: playing(state, event)
        case .finished: ignored(state, event)
        }
    }

    static func lookingUp(_ state: StateName, _ event: Event, paused: Bool) -> Expected {
        let suffix = paused ? " paused" : ""
        switch event {
        case .answerMiss: return Expected(state: "storing off", actions: ["send" + suffix])
        case .answerFresh: return Expected(state: "playing 0/\(size)\(suffix) hit off", actions: ["schedulePlay"])
        case .answerStale: return Expected(state: "validating off", actions: ["send cond" + suffix])
        case .pause: return Expected(state: "lookingUp paused")
        case .resume: return Expected(state: "lookingUp")
        case .stop: return Expected(state: "finished off", actions: ["stopped nil"])
        case .failAll: return Expected(state: "finished off", actions: ["end failure"])
        default: return ignored(state, event)
        }
    }

    static func forwarding(_ state: StateName, _ event: Event) -> Expected {
        let same = snapshots[state]!
        let isInvalidating = state == .invalidating
        let phase = state == .storing || state == .storingRec ? "storing" : "validating"
        let recording = state == .storingRec || state == .validatingRec
        let head = isInvalidating ? "pass" : "pass miss"
        switch event {
        case .head200: return Expected(state: isInvalidating ? same : "\(phase) 0B", route: head)
        case .head200Large: return Expected(state: isInvalidating ? same : "\(phase) off", route: head)
        case .head304 where isInvalidating: return Expected(state: same, route: head)
        case .head304 where phase == "storing": return Expected(state: "storing 0B", route: head)
        case .head304: return Expected(state: "absorbing304 off", route: "hide")
        case .piece: return Expected(state: recording ? "\(phase) 8B" : same, route: "pass")
        case .bigPiece: return Expected(state: recording ? "\(phase) off" : same, route: "pass")
        case .piecePaused, .progress: return Expected(state: same, route: "pass")
        case .end where isInvalidating, .endForeign where isInvalidating:
            return Expected(state: "finished off", actions: ["invalidate \(F.url)", "end 200 bypassed"])
        case .end where recording: return Expected(state: "finished off", actions: ["store 200 \"v2\"", "end 200 miss"])
        case .end, .endForeign: return Expected(state: "finished off", actions: ["end 200 miss"])
        case .endFailure: return Expected(state: "finished off", actions: ["end failure"])
        case .pause: return Expected(state: same, actions: ["pauseBeneath"])
        case .resume: return Expected(state: same, actions: ["resumeBeneath"])
        case .stop: return Expected(state: "finished off", actions: ["stopBeneath"])
        default: return ignored(state, event)
        }
    }

    static func absorbing(_ event: Event) -> Expected {
        let replay = "playing 0/\(size) revalidated off"
        switch event {
        case .end: return Expected(state: replay, actions: ["store 200 \"v2\"", "schedulePlay"])
        case .endForeign: return Expected(state: replay, actions: ["schedulePlay"])
        case .endFailure: return Expected(state: "finished off", actions: ["end failure"])
        case .pause: return Expected(state: snapshots[.absorbing304]!, actions: ["pauseBeneath"])
        case .resume: return Expected(state: snapshots[.absorbing304]!, actions: ["resumeBeneath"])
        case .stop: return Expected(state: "finished off", actions: ["stopBeneath"])
        default: return ignored(.absorbing304, event)
        }
    }

    static func playing(_ state: StateName, _ event: Event) -> Expected {
        let status = state == .replayScheduled ? "revalidated" : "hit"
        let delivered = state == .playPaused ? 65536 : 0
        let isPaused = state == .playScheduledPaused || state == .playPaused
        let played = "end 200 \(status) \(size)/\(size)"
        switch event {
        case .playTurn where !isPaused: return Expected(state: "finished off", actions: [played])
        case .playTurnPausing where !isPaused: return Expected(state: "playing 0/\(size) started paused \(status) off")
        case .pause where !isPaused: return Expected(state: "playing 0/\(size) paused \(status) off")
        case .resume: return Expected(state: "finished off", actions: ["playNow", played])
        case .stop: return Expected(state: "finished off", actions: ["stopped \(delivered)/\(size)"])
        case .failAll: return Expected(state: "finished off", actions: ["end failure \(delivered)/\(size)"])
        default: return ignored(state, event)
        }
    }

    @Test("each pair leads where the table says", arguments: StateName.allCases, Event.allCases)
    func pair(state name: StateName, event: Event) {
        var state = Self.state(name)
        #expect(Self.snapshot(state) == Self.snapshots[name], "the fixture did not reach \(name)")
        let (actions, route) = event.apply(to: &state)
        let expected = Self.expected(name, event)
        #expect(Self.snapshot(state) == expected.state)
        #expect(actions == expected.actions)
        #expect(route == expected.route)
    }

    @Test("after a stop, every event in any order does nothing", arguments: StateName.allCases)
    func nothingAfterAStop(state name: StateName) {
        var state = Self.state(name)
        _ = state.stopAsked(wantsProgress: true)
        #expect(state.isFinished)
        for event in Event.allCases {
            let (actions, route) = event.apply(to: &state)
            #expect(actions.isEmpty, "\(event) after the stop")
            #expect(route == nil || route == "hide", "\(event) after the stop")
        }
    }
}
