@testable import CurlBridge
import HTTPTypes
import Testing

/// ``BodyPresence``: which responses have a body at all, by method and status.
@Suite struct BodyPresenceTests {
    @Test(arguments: [(100, false), (101, false), (199, false), (200, true), (204, false), (205, true), (304, false), (404, true)])
    func aStatusRulesOutABodyOnlyFor1xx204And304(status: Int, allowsBody: Bool) {
        #expect(BodyPresence.statusAllowsBody(status) == allowsBody)
        #expect(BodyPresence.responseHasBody(method: .get, status: status) == allowsBody)
        #expect(!BodyPresence.responseHasBody(method: .head, status: status))
    }
}
