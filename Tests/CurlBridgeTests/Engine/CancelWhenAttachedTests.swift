@testable import CurlBridge
import Testing

/// ``CancelWhenAttached``, the "cancel now, or as soon as attached" value behind
/// ``CancellationLink``, ``InterceptorTask`` and ``ResponseBodyBuffer``: what each event says to
/// cancel, with no I/O.
@Suite("Cancel when attached")
struct CancelWhenAttachedTests {
    typealias Link = CancelWhenAttached<Int>

    @Test("a cancel before the attach cancels the target on attach")
    func cancelBeforeAttach() {
        var link = Link()
        #expect(link.cancel() == nil)
        #expect(link.isCancelled)
        #expect(link.attach(1) == 1)
    }

    @Test("attached, a target is cancelled by the cancel, not by the attach")
    func attachThenCancel() {
        var link = Link()
        #expect(link.attach(1) == nil)
        #expect(!link.isCancelled)
        #expect(link.cancel() == 1)
    }

    @Test("a second cancel names the attached target again")
    func doubleCancel() {
        var link = Link()
        _ = link.attach(1)
        #expect(link.cancel() == 1)
        #expect(link.cancel() == 1)
        #expect(link.isCancelled)
    }

    @Test("every target attached after a cancel is cancelled on attach")
    func attachAfterCancel() {
        var link = Link()
        _ = link.attach(1)
        _ = link.cancel()
        #expect(link.attach(2) == 2)
        #expect(link.target == 2)
    }

    @Test("a detached target is no longer cancelled, and the cancel stays")
    func detach() {
        var link = Link()
        _ = link.attach(1)
        #expect(link.detach() == 1)
        #expect(link.cancel() == nil)
        #expect(link.detach() == nil)
        #expect(link.attach(3) == 3)
    }
}
