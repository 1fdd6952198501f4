@testable import CurlBridge
import Testing

/// The receive buffer each transfer gets, by what its body goes to and the last collected body.
@Suite struct CurlReceiveBufferChoiceTests {
    @Test func collectedBodiesGetAtMost64KiBWhileTheyAreThatSmall() {
        var choice = CurlReceiveBufferChoice(configured: 512 << 10)
        #expect(choice.size(collectsBody: true, inFlight: 0) == 64 << 10)
        #expect(choice.size(collectsBody: false, inFlight: 0) == 512 << 10)
        choice.collectedBodyEnded(receiving: 64 << 10)
        #expect(choice.size(collectsBody: true, inFlight: 0) == 64 << 10)
    }

    @Test func aLargerCollectedBodyBringsTheConfiguredSizeBackUntilASmallOne() {
        var choice = CurlReceiveBufferChoice(configured: 512 << 10)
        choice.collectedBodyEnded(receiving: (64 << 10) + 1)
        #expect(choice.size(collectsBody: true, inFlight: 0) == 512 << 10)
        #expect(choice.size(collectsBody: false, inFlight: 0) == 512 << 10)
        choice.collectedBodyEnded(receiving: 100)
        #expect(choice.size(collectsBody: true, inFlight: 0) == 64 << 10)
    }

    @Test func aSmallerConfiguredSizeAppliesEverywhere() {
        var choice = CurlReceiveBufferChoice(configured: 16 << 10)
        #expect(choice.size(collectsBody: true, inFlight: 0) == 16 << 10)
        choice.collectedBodyEnded(receiving: 1 << 20)
        #expect(choice.size(collectsBody: true, inFlight: 0) == 16 << 10)
        #expect(choice.size(collectsBody: false, inFlight: 0) == 16 << 10)
    }

    @Test func beyondSixtyFourInFlightACollectedBodyGetsTheConfiguredSize() {
        let choice = CurlReceiveBufferChoice(configured: 512 << 10)
        #expect(choice.size(collectsBody: true, inFlight: 63) == 64 << 10)
        #expect(choice.size(collectsBody: true, inFlight: 64) == 512 << 10)
        #expect(choice.size(collectsBody: true, inFlight: 1_000) == 512 << 10)
    }
}
