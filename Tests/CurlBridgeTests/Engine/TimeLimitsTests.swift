@testable import CurlBridge
import Testing

/// ``TimeLimits``: which limit applies when they meet.
@Suite struct TimeLimitsTests {
    @Test func aSilentWaitRunsIntoTheNearerOfIdleAndTotal() {
        let both = TimeLimits(connectMilliseconds: nil, idleNanoseconds: 50_000_000, totalMilliseconds: 80)
        #expect(both.limit(reachedBySilenceOf: .milliseconds(50)) == nil)
        #expect(both.limit(reachedBySilenceOf: .milliseconds(60)).map { [$0.limit] } == [.milliseconds(50)])
        #expect(both.limit(reachedBySilenceOf: .milliseconds(60))?.code == .idleTimedOut)
        let totalFirst = TimeLimits(connectMilliseconds: nil, idleNanoseconds: 90_000_000, totalMilliseconds: 80)
        #expect(totalFirst.limit(reachedBySilenceOf: .seconds(1))?.code == .totalTimedOut)
        #expect(TimeLimits(connectMilliseconds: 10).limit(reachedBySilenceOf: .seconds(9)) == nil)
        #expect(TimeLimits(idleNanoseconds: 1_000_000).limit(reachedBySilenceOf: .seconds(1))?.code == .idleTimedOut)
    }
}
