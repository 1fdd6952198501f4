@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Testing

/// Whole journeys through ``RequestStateMachine`` — redirects, retries, holds, drains, the total
/// timeout, shutdown — and the one-completion property over random event sequences, with no I/O.
@Suite("Request state machine")
struct RequestStateMachineTests {
    typealias Machine = RequestStateMachine
    let now = MachineFixture.now

    /// The result of the one `complete` in `actions`, if any.
    private func outcome(_ actions: Machine.Actions) -> Result<Response, RequestError>? {
        for case .complete(let result, _, _) in actions { return result }
        return nil
    }

    @Test("a plain request: one send, one completion carrying its one attempt")
    func plainRequest() throws {
        var machine = Machine(MachineFixture.setup(retries: .none))
        #expect(machine.start(at: now).names == [.send(.attempt(1))])
        #expect(machine.sending(MachineFixture.target, at: MachineFixture.at(1)).isEmpty)
        let actions = machine.transferEnded(.success(MachineFixture.response(200)), at: MachineFixture.at(5))
        let response = try #require(try outcome(actions)?.get())
        #expect(response.attempts.map(\.outcome) == [.response(status: 200)])
        #expect(response.attempts.first?.duration == .milliseconds(4))
        #expect(machine.isFinished)
    }

    @Test("an observed request tells each step, in order")
    func notificationsInOrder() {
        var machine = Machine(MachineFixture.setup(observed: true))
        var events: [String] = []
        func note(_ actions: Machine.Actions) {
            for case .notify(let event) in actions {
                switch event {
                case .started: events.append("started")
                case .attemptStarted(_, let attempt, _): events.append("attempt \(attempt)")
                case .attemptEnded(let attempt, _, _): events.append("ended \(attempt)")
                case .redirected(let hop): events.append("redirect \(hop.status.code)")
                case .retryScheduled(let record, _): events.append("retry after \(record.number)")
                case .receivedHead, .completed: events.append("unexpected")
                }
            }
        }
        note(machine.start(at: now))
        note(machine.sending(MachineFixture.target, at: now))
        note(machine.transferEnded(.success(MachineFixture.response(302, [(.location, "/b")])), at: now))
        note(machine.sending(.init(method: .get, url: "http://origin.test/b"), at: now))
        note(machine.transferEnded(.success(MachineFixture.response(503)), at: now))
        note(machine.budgetAnswered(granted: true, at: now))
        note(machine.timerFired(.backoff(attempt: 1), at: now))
        note(machine.sending(MachineFixture.target, at: now))
        note(machine.transferEnded(.success(MachineFixture.response(200)), at: now))
        #expect(events == ["started", "attempt 1", "redirect 302", "ended 1", "retry after 1", "attempt 2", "ended 2"])
    }

    @Test("a request cancelled before it started is observed starting and ending, and sends nothing")
    func startCancelled() {
        var machine = Machine(MachineFixture.setup(observed: true))
        let actions = machine.startCancelled("cancelled first", at: now)
        #expect(actions.names == [.notify, .failed(.cancelled)])
        #expect(machine.isFinished)
        #expect(machine.start(at: now).isEmpty)
    }

    @Test("a redirect decided at completion follows with a new hop and records it on the response")
    func redirectAtCompletion() throws {
        var machine = Machine(MachineFixture.setup())
        _ = machine.start(at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        let follow = machine.transferEnded(.success(MachineFixture.response(302, [(.location, "/b")])), at: now)
        guard case .send(let next, .hop)? = follow.first else { Issue.record("no hop: \(follow.names)"); return }
        #expect(next.url == "http://origin.test/b")
        _ = machine.sending(.init(method: .get, url: next.url), at: now)
        let response = try #require(try outcome(machine.transferEnded(.success(MachineFixture.response(200)), at: now))?.get())
        #expect(response.redirects.map(\.location) == ["http://origin.test/b"])
        #expect(response.metrics.redirectCount == 1)
    }

    @Test("a redirect loop fails at the hop that revisits")
    func redirectLoop() {
        var machine = Machine(MachineFixture.setup())
        _ = machine.start(at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        _ = machine.transferEnded(.success(MachineFixture.response(302, [(.location, "/b")])), at: now)
        _ = machine.sending(.init(method: .get, url: "http://origin.test/b"), at: now)
        let actions = machine.transferEnded(.success(MachineFixture.response(302, [(.location, "/a")])), at: now)
        #expect(outcome(actions)?.failureCode == .tooManyRedirects)
    }

    @Test("retries carry every attempt, the wait before each, and why the last was not retried")
    func retryRecords() throws {
        var machine = Machine(MachineFixture.setup(retries: RetryPolicy(maximumAttempts: 2, baseDelay: .seconds(1))))
        _ = machine.start(at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        #expect(machine.transferEnded(.success(MachineFixture.response(503)), at: now).names == [.withdrawRetryFromBudget])
        let wait = machine.budgetAnswered(granted: true, at: now)
        #expect(wait.names == [.wait(.backoff(attempt: 1))])
        guard case .wait(let delay, _)? = wait.first else { return }
        #expect(delay == .milliseconds(500))  // jitter 0.5 of the 1 s ceiling
        _ = machine.timerFired(.backoff(attempt: 1), at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        let response = try #require(try outcome(machine.transferEnded(.success(MachineFixture.response(503)), at: now))?.get())
        #expect(response.attempts.map(\.outcome) == [.response(status: 503), .response(status: 503)])
        #expect(response.attempts.map(\.retryDelay) == [.milliseconds(500), nil])
        #expect(response.attempts.last?.retryDenial == .attemptsExhausted)
    }

    @Test("an empty retry budget delivers the outcome, saying so")
    func budgetExhausted() throws {
        var machine = Machine(MachineFixture.setup())
        _ = machine.start(at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        _ = machine.transferEnded(.success(MachineFixture.response(503)), at: now)
        let response = try #require(try outcome(machine.budgetAnswered(granted: false, at: now))?.get())
        #expect(response.attempts.last?.retryDenial == .budgetExhausted)
    }

    @Test("a POST is not retried by the policy, but is by a retrier; a one-shot stream by neither")
    func resendRules() {
        var post = Machine(MachineFixture.setup(.post(MachineFixture.url).body("x")))
        _ = post.start(at: now)
        _ = post.sending(MachineFixture.target, at: now)
        let delivered = post.transferEnded(.failure(MachineFixture.failure(.connectFailed)), at: now)
        #expect(outcome(delivered)?.failureValue?.attempts.last?.retryDenial == .notIdempotent)

        var retried = Machine(MachineFixture.setup(.post(MachineFixture.url).body("x"), retriers: true))
        _ = retried.start(at: now)
        _ = retried.sending(MachineFixture.target, at: now)
        #expect(retried.transferEnded(.failure(MachineFixture.failure(.connectFailed)), at: now).names == [.runRetriers])
        #expect(retried.retriersDecided(.retry, at: now).names == [.wait(.backoff(attempt: 1))])

        var stream = Machine(MachineFixture.setup(.put(MachineFixture.url).body(pulling: { nil }), retriers: true))
        _ = stream.start(at: now)
        _ = stream.sending(MachineFixture.target, at: now)
        _ = stream.transferEnded(.failure(MachineFixture.failure(.connectFailed)), at: now)
        #expect(outcome(stream.retriersDecided(.retry, at: now))?.failureValue?.attempts.last?.retryDenial == .bodyNotRewindable)
    }

    @Test("shutdown is sticky: a running attempt finishes, but no other starts")
    func shutdownIsSticky() {
        var machine = Machine(MachineFixture.setup())
        _ = machine.start(at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        #expect(machine.shutdown(at: now).isEmpty)
        _ = machine.transferEnded(.success(MachineFixture.response(503)), at: now)
        #expect(machine.budgetAnswered(granted: true, at: now).names == [.failed(.transportShutDown)])
    }

    @Test("a failure response that cannot be retried goes to the stream consumer at once")
    func unretriableFailureIsNotHeld() throws {
        var machine = Machine(MachineFixture.setup(consumer: MachineFixture.streaming, retries: .none))
        _ = machine.start(at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        guard case .proceed = machine.receivedHead(MachineFixture.head(503)) else {
            // One attempt only: nothing to hold for.
            #expect(StateName(machine.state) == .delivering)
            return
        }
        Issue.record("a response that cannot be retried was held")
    }

    @Test("a held failure response goes to the consumer when the retries run out")
    func heldThenDelivered() throws {
        var machine = Machine(MachineFixture.setup(consumer: MachineFixture.streaming, retries: RetryPolicy(maximumAttempts: 2, baseDelay: .zero)))
        _ = machine.start(at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        #expect(machine.forwardsProgress)
        guard case .proceed = machine.receivedHead(MachineFixture.head(503)) else { Issue.record("not held"); return }
        #expect(!machine.forwardsProgress)
        _ = Data("held".utf8).withUnsafeBytes { machine.receivedBody($0) }
        _ = machine.transferEnded(.success(MachineFixture.response(503)), at: now)
        _ = machine.budgetAnswered(granted: true, at: now)
        _ = machine.timerFired(.backoff(attempt: 1), at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        guard case .proceed = machine.receivedHead(MachineFixture.head(503)) else {
            // The last attempt: nothing more to hold for, so it goes to the consumer at once.
            #expect(StateName(machine.state) == .delivering)
            return
        }
        Issue.record("the last attempt's response was held")
    }

    @Test("a held response too large to hold is released to the consumer and not retried")
    func holdLimit() {
        var machine = Machine(MachineFixture.setup(consumer: MachineFixture.streaming))
        _ = machine.start(at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        _ = machine.receivedHead(MachineFixture.head(503))
        let big = Data(count: Machine.holdLimit + 1)
        guard case .release(let head, let held) = big.withUnsafeBytes({ machine.receivedBody($0) }) else {
            Issue.record("not released")
            return
        }
        #expect(head.status.code == 503 && held.isEmpty)
        let end = machine.transferEnded(.success(MachineFixture.response(503)), at: now)
        #expect(outcome(end)?.successValue?.attempts.last?.retryDenial == .responseDelivered)
    }

    @Test("a redirect body beyond the drain limit stops the hop; the redirect is followed anyway")
    func drainLimit() {
        var machine = Machine(MachineFixture.setup(consumer: MachineFixture.streaming))
        _ = machine.start(at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        guard case .follow = machine.receivedHead(MachineFixture.redirect) else { Issue.record("no follow"); return }
        let big = Data(count: Machine.drainLimit + 1)
        guard case .stop(let error) = big.withUnsafeBytes({ machine.receivedBody($0) }) else { Issue.record("not stopped"); return }
        #expect(machine.transferEnded(.failure(error), at: now).names == [.send(.hop)])
    }

    @Test("a hop whose HTTP/2 session closed is sent again once, then fails as a lost connection; a POST fails at once")
    func closingSessionResendOnce() {
        var machine = Machine(MachineFixture.setup(retries: .none))
        _ = machine.start(at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        let error = MachineFixture.failure(.protocolError)
        #expect(machine.transferEnded(.failure(error), closingSession: true, at: now).names == [.send(.resend)])
        #expect(machine.transferEnded(.failure(error), closingSession: true, at: now).names == [.failed(.connectionLost)])

        var post = Machine(MachineFixture.setup(.post(MachineFixture.url).body("x"), retries: .none))
        _ = post.start(at: now)
        _ = post.sending(MachineFixture.target, at: now)
        #expect(post.transferEnded(.failure(error), closingSession: true, at: now).names == [.failed(.connectionLost)])
    }

    @Test("the total timeout: each attempt gets what is left; none left fails before sending")
    func totalTimeout() {
        var machine = Machine(MachineFixture.setup(retries: RetryPolicy(maximumAttempts: 3, baseDelay: .zero), deadline: 100_000_000))
        let start = machine.start(at: MachineFixture.at(40))
        guard case .send(let request, _)? = start.last else { Issue.record("no send"); return }
        #expect(request.timeouts.total == .milliseconds(60))
        _ = machine.sending(MachineFixture.target, at: MachineFixture.at(40))
        _ = machine.transferEnded(.failure(MachineFixture.failure(.connectFailed)), at: MachineFixture.at(90))
        _ = machine.budgetAnswered(granted: true, at: MachineFixture.at(90))
        #expect(machine.timerFired(.backoff(attempt: 1), at: MachineFixture.at(100)).names == [.failed(.totalTimedOut)])
    }

    @Test("a backoff timer of an earlier attempt does nothing")
    func staleBackoff() {
        var machine = Machine(MachineFixture.setup(retries: RetryPolicy(maximumAttempts: 3, baseDelay: .zero)))
        _ = machine.start(at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        _ = machine.transferEnded(.failure(MachineFixture.failure(.connectFailed)), at: now)
        _ = machine.budgetAnswered(granted: true, at: now)
        _ = machine.timerFired(.backoff(attempt: 1), at: now)
        _ = machine.sending(MachineFixture.target, at: now)
        _ = machine.transferEnded(.failure(MachineFixture.failure(.connectFailed)), at: now)
        _ = machine.budgetAnswered(granted: true, at: now)
        #expect(machine.timerFired(.backoff(attempt: 1), at: now).isEmpty)
        #expect(machine.timerFired(.backoff(attempt: 2), at: now).names == [.send(.attempt(3))])
    }

    @Test("random event sequences: at most one completion, and nothing after it", arguments: 0..<20)
    func oneCompletion(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<100 {
            let state = StateName.allCases.randomElement(using: &generator)!
            var machine = RequestStateMachineTableTests.machine(in: state)
            var completions = state == .finished ? 1 : 0
            for _ in 0..<12 {
                let event = RequestStateMachineTableTests.Event.allCases.randomElement(using: &generator)!
                let (actions, _) = event.apply(to: &machine)
                let ended = actions.filter { if case .complete = $0 { true } else { false } }.count
                #expect(completions == 0 || actions.isEmpty, "\(event) acted after the completion (seed \(seed))")
                completions += ended
                #expect(completions <= 1, "a second completion (seed \(seed))")
                #expect(ended == 0 || machine.isFinished)
            }
        }
    }
}

extension Result where Failure == RequestError {
    var successValue: Success? { try? get() }
    var failureValue: RequestError? { failure }
    var failureCode: RequestError.Code? { failure?.code }
}
