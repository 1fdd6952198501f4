@testable import CurlBridge
import Foundation
import Testing

/// Every event in every state of ``RequestStateMachine``, the impossible pairs included (a late
/// transfer end after a cancel, a second cancel, a timer after the end): the state it leads to and
/// the actions it returns, with no I/O — for a streaming consumer (head, body and progress) and
/// for the in-memory one (which never drains, holds or delivers: it decides from the complete
/// response).
@Suite("Request state machine: every (state, event) pair")
struct RequestStateMachineTableTests {
    /// The events, each applied as the executor would.
    enum Event: String, CaseIterable, CustomStringConvertible {
        case start, startPlainly, startCancelled, adapted, adaptationFailed, sending, sendFailed, head200, head302, body, replayDelivered
        case ended200, endedPlainly200, ended302, ended503, endedOnClosingSession
        case retrierRetries, retrierRetriesAfter, retrierDeclines, retrierFails, budgetGranted, budgetDenied
        case backoffFired, deadlineFired, cancel, shutdown

        var description: String { rawValue }

        /// Applies the event; a head or body event's decision is returned as a name.
        func apply(to machine: inout RequestStateMachine) -> (actions: [ActionName], route: String?) {
            let now = MachineFixture.now
            switch self {
            case .start: return (machine.start(at: now).names, nil)
            case .startPlainly: return ([], machine.startPlainly() == nil ? nil : "plain")
            case .startCancelled: return (machine.startCancelled("the request was cancelled", at: now).names, nil)
            case .sending: return (machine.sending(MachineFixture.target, at: now).names, nil)
            case .adapted: return (machine.adapted(.success(.get(MachineFixture.url)), at: now).names, nil)
            case .adaptationFailed: return (machine.adapted(.failure(MachineFixture.failure(.adaptationFailed)), at: now).names, nil)
            case .sendFailed: return (machine.sendFailed(MachineFixture.failure(.invalidURL), at: now).names, nil)
            case .head200: return ([], Self.name(machine.receivedHead(MachineFixture.head(200))))
            case .head302: return ([], Self.name(machine.receivedHead(MachineFixture.redirect)))
            case .replayDelivered:
                machine.replayDelivered()
                return ([], nil)
            case .body:
                let route = Data("x".utf8).withUnsafeBytes { machine.receivedBody($0) }
                switch route {
                case .collect: return ([], "collect")
                case .absorb: return ([], "absorb")
                case .stop: return ([], "stop")
                case .consume: return ([], "consume")
                case .release: return ([], "release")
                }
            case .ended200: return (machine.transferEnded(.success(MachineFixture.response(200)), at: now).names, nil)
            case .endedPlainly200:
                var result = Result<Response, RequestError>.success(MachineFixture.response(200))
                switch machine.endPlainly(&result, at: now) {
                case .complete: return ([.completed(result.successValue?.status.code ?? 0)], nil)
                case .decide: return ([], "decide")
                }
            case .ended302: return (machine.transferEnded(.success(MachineFixture.response(302, [(.location, "/b")])), at: now).names, nil)
            case .ended503: return (machine.transferEnded(.success(MachineFixture.response(503)), at: now).names, nil)
            case .endedOnClosingSession:
                return (machine.transferEnded(.failure(MachineFixture.failure(.protocolError)), closingSession: true, at: now).names, nil)
            case .retrierRetries: return (machine.retriersDecided(.retry, at: now).names, nil)
            case .retrierRetriesAfter: return (machine.retriersDecided(.retryAfter(.seconds(1)), at: now).names, nil)
            case .retrierDeclines: return (machine.retriersDecided(.doNotRetry, at: now).names, nil)
            case .retrierFails: return (machine.retriersDecided(.fail(Refusal()), at: now).names, nil)
            case .budgetGranted: return (machine.budgetAnswered(granted: true, at: now).names, nil)
            case .budgetDenied: return (machine.budgetAnswered(granted: false, at: now).names, nil)
            case .backoffFired: return (machine.timerFired(.backoff(attempt: 1), at: now).names, nil)
            case .deadlineFired: return (machine.timerFired(.deadline, at: now).names, nil)
            case .cancel: return (machine.cancel("the request was cancelled", at: now).names, nil)
            case .shutdown: return (machine.shutdown(at: now).names, nil)
            }
        }

        /// A head decision by name.
        private static func name(_ decision: RequestStateMachine.HeadDecision) -> String {
            switch decision {
            case .proceed: "proceed"
            case .follow: "follow"
            case .deliver: "deliver"
            case .fail: "fail"
            }
        }
    }

    /// What a retrier fails a request with.
    struct Refusal: Error {}

    /// The states an in-memory consumer's request can be in: it never drains, holds or delivers.
    static let inMemoryStates = StateName.allCases.filter { ![.draining, .holding, .delivering].contains($0) }

    /// A machine brought into `state` by real events, consuming head, body and progress (or, if
    /// `inMemory`, nothing but the outcome), with a 60 s total timeout (adapters or retriers only
    /// where the state needs them). A `plain` one consumes nothing and has no total timeout,
    /// which is what makes it plain.
    static func machine(in state: StateName, inMemory: Bool = false) -> RequestStateMachine {
        let deadline: UInt64 = 60_000_000_000
        let now = MachineFixture.now
        guard state != .plain else {
            var machine = RequestStateMachine(MachineFixture.setup())
            _ = machine.startPlainly()
            _ = machine.sending(MachineFixture.target, at: now)
            return machine
        }
        var machine = RequestStateMachine(MachineFixture.setup(
            adapters: state == .adapting, retriers: state == .decidingRetry, consumer: inMemory ? .init() : MachineFixture.streaming,
            deadline: deadline))
        guard state != .initial else { return machine }
        _ = machine.start(at: now)
        guard state != .adapting else { return machine }
        _ = machine.sending(MachineFixture.target, at: now)
        switch state {
        case .draining: _ = machine.receivedHead(MachineFixture.redirect)
        case .holding: _ = machine.receivedHead(MachineFixture.head(503))
        case .delivering: _ = machine.receivedHead(MachineFixture.head(200))
        case .decidingRetry, .awaitingBudget:
            _ = machine.transferEnded(.failure(MachineFixture.failure(.connectFailed)), at: now)
        case .waitingToRetry:
            _ = machine.transferEnded(.failure(MachineFixture.failure(.connectFailed)), at: now)
            _ = machine.budgetAnswered(granted: true, at: now)
        case .finished: _ = machine.transferEnded(.success(MachineFixture.response(200)), at: now)
        case .initial, .adapting, .plain, .open: break
        }
        return machine
    }

    /// What an event does in a state.
    struct Expected: CustomStringConvertible {
        var state: StateName
        var actions: [ActionName] = []
        var route: String?

        var description: String { "\(state) \(actions) \(route ?? "")" }
    }

    /// Nothing changes: the event does not apply to the state.
    static func ignored(_ state: StateName) -> Expected {
        Expected(state: state)
    }

    /// The expected outcome of `event` in `state`, for a streaming consumer.
    static func expected(_ state: StateName, _ event: Event) -> Expected {
        if state == .plain { return expectedPlain(event) }
        // Head and body events never change a state they do not apply to.
        switch (state, event) {
        case (.open, .head200): return Expected(state: .delivering, route: "deliver")
        case (.open, .head302): return Expected(state: .draining, route: "follow")
        case (_, .head200), (_, .head302): return Expected(state: state, route: "proceed")
        case (.open, .body), (.delivering, .body): return Expected(state: state, route: "consume")
        case (_, .body): return Expected(state: state, route: "absorb")
        // The consumer's head came with the transfer's end: it has the response, redirect or not.
        case (.open, .ended302), (.delivering, .ended302): return Expected(state: .finished, actions: [.completed(302)])
        // A held 503 is what ended, whatever the end says.
        case (.holding, .ended302): return Expected(state: .awaitingBudget, actions: [.withdrawRetryFromBudget])
        case (.draining, .ended302): return Expected(state: .open, actions: [.send(.hop)])
        default: return common(state, event)
        }
    }

    /// The expected outcome of `event` in `state`, for the in-memory consumer: heads and bodies
    /// decide nothing, and a redirect is followed from the complete response.
    static func expectedInMemory(_ state: StateName, _ event: Event) -> Expected {
        if state == .plain { return expectedPlain(event) }
        switch (state, event) {
        case (_, .head200), (_, .head302): return Expected(state: state, route: "proceed")
        case (.open, .body): return Expected(state: state, route: "collect")
        case (_, .body): return Expected(state: state, route: "absorb")
        case (.open, .ended302): return Expected(state: .open, actions: [.send(.hop)])
        default: return common(state, event)
        }
    }

    /// The expected outcome of `event` for a plain request in its transfer: what the in-memory
    /// consumer's open hop does. An event that needs the hop (the transfer's end, a second send,
    /// a failed send, a cancel) makes it first, so the request is then as the general path leaves it; after any
    /// other it is still plain.
    static func expectedPlain(_ event: Event) -> Expected {
        var expected = expectedInMemory(.open, event)
        if event == .endedPlainly200 { return Expected(state: .finished, actions: [.completed(200)]) }
        let makesHop: Set<Event> = [.sending, .ended200, .ended302, .ended503, .endedOnClosingSession, .sendFailed, .cancel]
        if expected.state == .open, !makesHop.contains(event) { expected.state = .plain }
        return expected
    }

    /// What every consumer's request does with `event` in `state`.
    static func common(_ state: StateName, _ event: Event) -> Expected {
        let finished = StateName.finished
        switch (state, event) {
        // Only a plain request in its transfer ends plainly; anywhere else the end is handed back.
        case (_, .endedPlainly200): return Expected(state: state, route: "decide")
        // Cancel and shutdown end the request in every state but a running one's shutdown.
        case (.finished, _): return ignored(.finished)
        case (.open, .cancel), (.draining, .cancel), (.holding, .cancel), (.delivering, .cancel):
            return Expected(state: finished, actions: [.stopTransfer, .failed(.cancelled)])
        case (.adapting, .cancel), (.decidingRetry, .cancel):
            return Expected(state: finished, actions: [.cancelInterceptors, .failed(.cancelled)])
        case (_, .cancel): return Expected(state: finished, actions: [.failed(.cancelled)])
        case (.open, .shutdown), (.draining, .shutdown), (.holding, .shutdown), (.delivering, .shutdown):
            return ignored(state)
        case (.adapting, .shutdown), (.decidingRetry, .shutdown):
            return Expected(state: finished, actions: [.cancelInterceptors, .failed(.transportShutDown)])
        case (_, .shutdown): return Expected(state: finished, actions: [.failed(.transportShutDown)])
        // The total timeout ends interceptor waits and backoffs; curl's own applies in a transfer.
        case (.adapting, .deadlineFired), (.decidingRetry, .deadlineFired):
            return Expected(state: finished, actions: [.cancelInterceptors, .failed(.totalTimedOut)])
        case (.awaitingBudget, .deadlineFired), (.waitingToRetry, .deadlineFired):
            return Expected(state: finished, actions: [.failed(.totalTimedOut)])
        // The way forward from each state.
        case (.initial, .start): return Expected(state: .open, actions: [.countRequestInBudget, .send(.attempt(1))])
        case (.initial, .startCancelled): return Expected(state: finished, actions: [.failed(.cancelled)])
        case (.adapting, .adapted): return Expected(state: .open, actions: [.send(.attempt(1))])
        case (.adapting, .adaptationFailed): return Expected(state: finished, actions: [.failed(.adaptationFailed)])
        case (.open, .ended200), (.delivering, .ended200): return Expected(state: finished, actions: [.completed(200)])
        case (.open, .ended503), (.holding, .ended200), (.holding, .ended503):
            return Expected(state: .awaitingBudget, actions: [.withdrawRetryFromBudget])
        case (.delivering, .ended503): return Expected(state: finished, actions: [.completed(503)])  // the consumer has it
        case (.open, .endedOnClosingSession): return Expected(state: .open, actions: [.send(.resend)])
        case (.draining, .ended200), (.draining, .ended503), (.draining, .endedOnClosingSession):
            return Expected(state: .open, actions: [.send(.hop)])
        case (.holding, .endedOnClosingSession), (.delivering, .endedOnClosingSession):
            return Expected(state: finished, actions: [.failed(.protocolError)])
        case (.open, .sendFailed), (.draining, .sendFailed), (.holding, .sendFailed), (.delivering, .sendFailed):
            return Expected(state: finished, actions: [.failed(.invalidURL)])
        case (.decidingRetry, .retrierRetries), (.decidingRetry, .retrierRetriesAfter), (.awaitingBudget, .budgetGranted):
            return Expected(state: .waitingToRetry, actions: [.wait(.backoff(attempt: 1))])
        // Declined by the retriers, the policy decides: it would retry the refused connection.
        case (.decidingRetry, .retrierDeclines): return Expected(state: .awaitingBudget, actions: [.withdrawRetryFromBudget])
        case (.decidingRetry, .retrierFails): return Expected(state: finished, actions: [.failed(.retrierFailed)])
        case (.awaitingBudget, .budgetDenied): return Expected(state: finished, actions: [.failed(.connectFailed)])
        case (.waitingToRetry, .backoffFired): return Expected(state: .open, actions: [.send(.attempt(2))])
        // Already sending (the fixture's hop was handed over), or nothing to send: nothing to do.
        // A replay taken, or none to take: nothing returns, the phase stays.
        default: return ignored(state)
        }
    }

    @Test("each pair leads where the table says", arguments: StateName.allCases, Event.allCases)
    func pair(state: StateName, event: Event) {
        var machine = Self.machine(in: state)
        #expect(StateName(machine.state) == state, "the fixture did not reach \(state)")
        let (actions, route) = event.apply(to: &machine)
        let expected = Self.expected(state, event)
        #expect(StateName(machine.state) == expected.state)
        #expect(actions == expected.actions)
        #expect(route == expected.route)
    }

    @Test("each pair of the in-memory consumer leads where the table says", arguments: inMemoryStates, Event.allCases)
    func inMemoryPair(state: StateName, event: Event) {
        var machine = Self.machine(in: state, inMemory: true)
        #expect(StateName(machine.state) == state, "the fixture did not reach \(state)")
        let (actions, route) = event.apply(to: &machine)
        let expected = Self.expectedInMemory(state, event)
        #expect(StateName(machine.state) == expected.state)
        #expect(actions == expected.actions)
        #expect(route == expected.route)
    }

    @Test("after the end, every event in any order does nothing", arguments: StateName.allCases)
    func nothingAfterTheEnd(state: StateName) {
        var machine = Self.machine(in: state)
        _ = machine.cancel("the request was cancelled", at: MachineFixture.now)
        #expect(machine.isFinished)
        for event in Event.allCases {
            let (actions, _) = event.apply(to: &machine)
            #expect(actions.isEmpty, "\(event) after the end")
        }
    }
}
