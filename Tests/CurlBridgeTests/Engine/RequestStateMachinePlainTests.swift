@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// A plain request's short road through ``RequestStateMachine`` (``RequestStateMachine/startPlainly()``,
/// ``RequestStateMachine/endPlainly(_:at:)``) against the general one: the same outcome, attempts
/// and durations, and the general path for whatever needs a decision. Every other event in the
/// plain state is in the table of ``RequestStateMachineTableTests``.
@Suite("Request state machine: plain requests")
struct RequestStateMachinePlainTests {
    typealias Machine = RequestStateMachine

    /// What the executor prepared from the caller's request: another URL than the request's own
    /// (a base URL resolved, say), so that a failure named after it is told apart.
    static let prepared = RequestStateMachine.Target(method: .get, url: MachineFixture.url + "?prepared")

    /// A plain request started both ways, its hop sent at 1 ms.
    private func started(_ setup: Machine.Setup = MachineFixture.setup()) -> (plain: Machine, general: Machine) {
        var plain = Machine(setup)
        var general = Machine(setup)
        _ = plain.startPlainly()
        _ = general.start(at: MachineFixture.at(0))
        _ = plain.sending(Self.prepared, at: MachineFixture.at(1))
        _ = general.sending(Self.prepared, at: MachineFixture.at(1))
        return (plain, general)
    }

    @Test("an ordinary end completes it as the general path does: one attempt recorded, the same durations", arguments: [200, 204, 304])
    func ordinaryEnd(status: Int) throws {
        var (plain, general) = started()
        let end = MachineFixture.at(5)
        var result = Result<Response, RequestError>.success(MachineFixture.response(status))
        guard case .complete(let duration) = plain.endPlainly(&result, at: end), case .success(let response) = result else {
            Issue.record("a \(status) was handed back to be decided")
            return
        }
        var expected: (Response, Duration)?
        for case .complete(.success(let response), nil, let duration) in general.transferEnded(.success(MachineFixture.response(status)), at: end) {
            expected = (response, duration)
        }
        let (generalResponse, generalDuration) = try #require(expected)
        #expect(response.status.code == status)
        #expect(response.attempts == generalResponse.attempts)
        #expect(response.attempts.map(\.duration) == [.milliseconds(4)])
        #expect(response.redirects.isEmpty)
        #expect(duration == generalDuration)
        #expect(plain.isFinished)
        #expect(plain.cancel("the request was cancelled", at: end).isEmpty)
    }

    @Test("a redirect, a status a policy may retry and a failure are handed back, and decided as the general path decides them")
    func decisionsGoTheGeneralWay() {
        let outcomes: [Result<Response, RequestError>] = [
            .success(MachineFixture.response(302, [(.location, "/b")])), .success(MachineFixture.response(503)),
            .success(MachineFixture.response(404)), .failure(MachineFixture.failure(.connectFailed)),
        ]
        for outcome in outcomes {
            var (plain, general) = started()
            let end = MachineFixture.at(5)
            var handedBack = outcome
            guard plain.endPlainly(&handedBack, at: end) == .decide else {
                Issue.record("\(outcome) completed without a decision")
                continue
            }
            #expect(StateName(plain.state) == .plain)
            #expect(handedBack.successValue?.status == outcome.successValue?.status)
            #expect(handedBack.failureCode == outcome.failureCode)
            #expect(handedBack.successValue?.attempts.isEmpty ?? true)  // left as it was: no attempt recorded
            #expect(plain.transferEnded(handedBack, at: end).names == general.transferEnded(outcome, at: end).names)
            #expect(StateName(plain.state) == StateName(general.state))
        }
    }

    @Test("a request that needs the machine before its end does not start plainly")
    func notPlain() {
        let setups = [
            MachineFixture.setup(adapters: true), MachineFixture.setup(observed: true),
            MachineFixture.setup(consumer: MachineFixture.streaming), MachineFixture.setup(consumer: .init(takesProgress: true)),
            MachineFixture.setup(deadline: 60_000_000_000),
        ]
        for setup in setups {
            var machine = Machine(setup)
            #expect(machine.startPlainly() == nil)
            #expect(StateName(machine.state) == .initial)
            _ = machine.start(at: MachineFixture.now)
            #expect([.adapting, .open].contains(StateName(machine.state)))
        }
    }

    @Test("a plain request is counted in the retry budget when its policy may retry, as the general start counts it")
    func budget() {
        var retrying = Machine(MachineFixture.setup(retries: RetryPolicy(maximumAttempts: 3)))
        var once = Machine(MachineFixture.setup(retries: .none))
        #expect(retrying.startPlainly()?.countsInBudget == true)
        #expect(once.startPlainly()?.countsInBudget == false)
        #expect(retrying.startPlainly() == nil)  // started already
    }

    @Test("a cancel makes the hop the general path would have: the transfer stopped, the failure named after what was sent")
    func cancelNamesTheTarget() throws {
        var (plain, general) = started()
        let actions = plain.cancel("the request was cancelled", at: MachineFixture.at(3))
        #expect(actions.names == general.cancel("the request was cancelled", at: MachineFixture.at(3)).names)
        var failure: RequestError?
        for case .complete(.failure(let error), _, _) in actions { failure = error }
        #expect(failure?.url == Self.prepared.url)
        #expect(failure?.attempts.map(\.outcome) == [.failure(.cancelled)])
    }

    @Test("a request that cannot be sent fails as the general path fails it: at once, no attempt recorded")
    func sendFailedBeforeSending() {
        var plain = Machine(MachineFixture.setup())
        var general = Machine(MachineFixture.setup())
        _ = plain.startPlainly()
        _ = general.start(at: MachineFixture.at(0))
        let failed = plain.sendFailed(MachineFixture.failure(.invalidURL), at: MachineFixture.at(1))
        #expect(failed.names == general.sendFailed(MachineFixture.failure(.invalidURL), at: MachineFixture.at(1)).names)
        #expect(failed.names == [.failed(.invalidURL)])
        for case .complete(.failure(let error), _, _) in failed { #expect(error.attempts.isEmpty) }
        #expect(plain.isFinished)
    }

    @Test("with retriers: an ordinary end completes without asking them, a 503 is handed back and asks them")
    func retriers() {
        var (plain, general) = started(MachineFixture.setup(retriers: true))
        var ok = Result<Response, RequestError>.success(MachineFixture.response(200))
        guard case .complete = plain.endPlainly(&ok, at: MachineFixture.at(5)) else {
            Issue.record("a 200 was handed back to be decided")
            return
        }
        (plain, general) = started(MachineFixture.setup(retriers: true))
        var handedBack = Result<Response, RequestError>.success(MachineFixture.response(503))
        guard plain.endPlainly(&handedBack, at: MachineFixture.at(5)) == .decide else {
            Issue.record("a 503 completed without asking the retriers")
            return
        }
        let asked = plain.transferEnded(handedBack, at: MachineFixture.at(5)).names
        #expect(asked == [.runRetriers])
        #expect(asked == general.transferEnded(.success(MachineFixture.response(503)), at: MachineFixture.at(5)).names)
    }

    @Test("a second send of the plain hop is recorded as the general path records it: the first target stays")
    func secondSending() {
        var (plain, general) = started()
        let other = RequestStateMachine.Target(method: .get, url: MachineFixture.url + "?again")
        #expect(plain.sending(other, at: MachineFixture.at(2)).isEmpty && general.sending(other, at: MachineFixture.at(2)).isEmpty)
        #expect(plain.firstTarget == general.firstTarget)
        #expect(plain.attemptStartedAt == general.attemptStartedAt)
        var failure: RequestError?
        for case .complete(.failure(let error), _, _) in plain.cancel("the request was cancelled", at: MachineFixture.at(3)) { failure = error }
        #expect(failure?.url == other.url)  // named after the hop's latest target, as the general path names it
        for case .complete(.failure(let error), _, _) in general.cancel("the request was cancelled", at: MachineFixture.at(3)) {
            #expect(error.url == failure?.url)
        }
    }
}
