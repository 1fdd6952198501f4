@testable import CurlBridge
import Testing

/// ``RequestStateMachine/Actions`` holds one action in the value and several in an array: adding
/// and joining them keeps their order whichever form each side has.
@Suite struct RequestStateMachineActionsTests {
    private typealias Actions = RequestStateMachine.Actions

    @Test("append goes from none to one to many, in order")
    func append() {
        var actions = Actions()
        #expect(actions.isEmpty)
        actions.append(.countRequestInBudget)
        #expect(actions.names == [.countRequestInBudget])
        actions.append(.stopTransfer(reportsFinalProgress: false))
        actions.append(.cancelInterceptors)
        #expect(actions.names == [.countRequestInBudget, .stopTransfer, .cancelInterceptors])
    }

    @Test("then joins every pair of forms in order, and an empty side gives the other unchanged")
    func then() {
        let forms: [Actions] = [Actions(), Actions(.countRequestInBudget), {
            var two = Actions(.cancelInterceptors)
            two.append(.withdrawRetryFromBudget)
            return two
        }()]
        for first in forms {
            for later in [Actions(), Actions(.stopTransfer(reportsFinalProgress: true)), forms[2]] {
                #expect(first.then(later).names == first.names + later.names)
            }
        }
    }
}
