@testable import CurlBridge
import Testing

/// The receive buffer each transfer gets, by what its body goes to and the last collected body.
@Suite struct CurlReceiveBufferChoiceTests {
    @Test func collectedBodiesGetAtMost64KiBWhileTheyAreThatSmall() {
        var choice = CurlReceiveBufferChoice(configured: 512 << 10)
        #expect(choice.size(collectsBody: true) == 64 << 10)
        #expect(choice.size(collectsBody: false) == 512 << 10)
        choice.collectedBodyEnded(receiving: 64 << 10)
        #expect(choice.size(collectsBody: true) == 64 << 10)
    }

    @Test func aLargerCollectedBodyBringsTheConfiguredSizeBackUntilASmallOne() {
        var choice = CurlReceiveBufferChoice(configured: 512 << 10)
        choice.collectedBodyEnded(receiving: (64 << 10) + 1)
        #expect(choice.size(collectsBody: true) == 512 << 10)
        #expect(choice.size(collectsBody: false) == 512 << 10)
        choice.collectedBodyEnded(receiving: 100)
        #expect(choice.size(collectsBody: true) == 64 << 10)
    }

    @Test func aSmallerConfiguredSizeAppliesEverywhere() {
        var choice = CurlReceiveBufferChoice(configured: 16 << 10)
        #expect(choice.size(collectsBody: true) == 16 << 10)
        choice.collectedBodyEnded(receiving: 1 << 20)
        #expect(choice.size(collectsBody: true) == 16 << 10)
        #expect(choice.size(collectsBody: false) == 16 << 10)
    }
}
