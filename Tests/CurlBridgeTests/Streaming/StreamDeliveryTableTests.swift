@testable import CurlBridge
import Testing

/// Every event in every state of ``StreamDelivery`` (a ``StreamTask``'s delivery): 3 phases, each
/// paused or not and cancelled or not, all reached by real events; the impossible pairs (an item
/// taken with no drain running) included. State and action asserted for each.
@Suite("Stream delivery: every (state, event) pair")
struct StreamDeliveryTableTests {
    /// A state by name: its phase and flags.
    struct StateName: CustomStringConvertible, Sendable {
        var phase: StreamDelivery.Phase
        var isPaused: Bool
        var isCancelled: Bool

        var description: String { "\(phase)\(isPaused ? " paused" : "")\(isCancelled ? " cancelled" : "")" }

        /// The twelve states.
        static let all: [StateName] = [StreamDelivery.Phase.idle, .draining, .complete].flatMap { phase in
            [false, true].flatMap { paused in [false, true].map { StateName(phase: phase, isPaused: paused, isCancelled: $0) } }
        }

        /// The name of `delivery`'s state.
        init(_ delivery: StreamDelivery) {
            self.init(phase: delivery.phase, isPaused: delivery.isPaused, isCancelled: delivery.isCancelled)
        }

        init(phase: StreamDelivery.Phase, isPaused: Bool, isCancelled: Bool) {
            self.phase = phase
            self.isPaused = isPaused
            self.isCancelled = isCancelled
        }
    }

    /// The events, each applied as the task would.
    enum Event: String, CaseIterable, CustomStringConvertible {
        case pause, resume, cancel, drainAsked, drainMayTake, tookNothing, tookHead, tookChunk, tookEnd

        var description: String { rawValue }

        /// Applies the event; returns what the delivery told the task to do, by name.
        func apply(to delivery: inout StreamDelivery) -> String? {
            switch self {
            case .pause: delivery.paused()
            case .resume: delivery.resumed()
            case .cancel: delivery.cancelled()
            case .drainAsked: return delivery.drainAsked() ? "schedule" : "none"
            case .drainMayTake: return delivery.drainMayTake() ? "take" : "stop"
            case .tookNothing: return Self.name(delivery.drainTook(.nothing))
            case .tookHead: return Self.name(delivery.drainTook(.head))
            case .tookChunk: return Self.name(delivery.drainTook(.chunk))
            case .tookEnd: return Self.name(delivery.drainTook(.end))
            }
            return nil
        }

        private static func name(_ handover: StreamDelivery.Handover) -> String {
            switch handover {
            case .stop: "stop"
            case .deliver: "deliver"
            case .drop: "drop"
            case .complete(let asCancelled): asCancelled ? "complete cancelled" : "complete"
            }
        }
    }

    /// A delivery brought into `state` by real events.
    static func delivery(in state: StateName) -> StreamDelivery {
        var delivery = StreamDelivery()
        if state.phase != .idle { _ = delivery.drainAsked() }
        if state.phase == .complete {
            _ = delivery.drainMayTake()
            _ = delivery.drainTook(.end)
        }
        if state.isPaused { delivery.paused() }
        if state.isCancelled { delivery.cancelled() }
        return delivery
    }

    /// The expected state and action of `event` in `state`.
    static func expected(_ state: StateName, _ event: Event) -> (state: StateName, action: String?) {
        var after = state
        switch (state.phase, event) {
        // The caller's pause, resume and cancel set their flag in every phase and ask nothing.
        case (_, .pause):
            after.isPaused = true
            return (after, nil)
        case (_, .resume):
            after.isPaused = false
            return (after, nil)
        case (_, .cancel):
            after.isCancelled = true
            return (after, nil)
        // A drain is scheduled only when none runs, unpaused, before the end.
        case (.idle, .drainAsked) where !state.isPaused:
            after.phase = .draining
            return (after, "schedule")
        case (_, .drainAsked): return (state, "none")
        // A running drain takes while unpaused; paused, it stops and the phase goes idle.
        case (.draining, .drainMayTake) where state.isPaused:
            after.phase = .idle
            return (after, "stop")
        case (.draining, .drainMayTake): return (state, "take")
        case (_, .drainMayTake): return (state, "stop")
        // What a running drain took: nothing stops it; heads and chunks go to their handler, or
        // are dropped after a cancel; the end completes, as a cancellation after a cancel.
        case (.draining, .tookNothing):
            after.phase = .idle
            return (after, "stop")
        case (.draining, .tookHead), (.draining, .tookChunk): return (state, state.isCancelled ? "drop" : "deliver")
        case (.draining, .tookEnd):
            after.phase = .complete
            return (after, state.isCancelled ? "complete cancelled" : "complete")
        // An item taken with no drain running cannot happen: it is stopped, and nothing changes.
        case (.idle, _), (.complete, _): return (state, "stop")
        }
    }

    @Test("each pair leads where the table says", arguments: StateName.all, Event.allCases)
    func pair(state: StateName, event: Event) {
        var delivery = Self.delivery(in: state)
        #expect(StateName(delivery).description == state.description, "the fixture did not reach \(state)")
        let action = event.apply(to: &delivery)
        let expected = Self.expected(state, event)
        #expect(StateName(delivery).description == expected.state.description)
        #expect(action == expected.action)
    }
}
