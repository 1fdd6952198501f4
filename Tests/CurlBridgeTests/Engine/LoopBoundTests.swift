@testable import CurlBridge
import Testing

/// ``LoopBound``'s two holds and ``TransferCounter``'s sum: what the thread-crossing primitives
/// promise, with a loop the test turns by hand. No transport, no server.
@Suite("LoopBound and TransferCounter")
struct LoopBoundTests {
    /// An object the loop owns.
    final class Owned {
        var visits = 0
    }

    /// Work submitted to it waits until the test turns it.
    typealias ManualLoop = CachingEngineTests.ManualLoop

    @Test("An owned object is kept, and work submitted with it runs on the loop's turn")
    func ownedObjectIsKeptAndOpenedByWork() {
        let loop = ManualLoop()
        let bound = LoopBound(owning: Owned(), on: loop)
        #expect(bound.submit { $0.visits += 1 })
        #expect(bound.open()?.visits == 0)
        loop.turn()
        #expect(bound.open()?.visits == 1)
    }

    @Test("An owned object with no loop is opened, and submits nothing")
    func ownedObjectWithoutLoopRefusesWork() {
        let bound = LoopBound(owning: Owned())
        #expect(bound.open() != nil)
        #expect(!bound.submit { $0.visits += 1 })
    }

    @Test("A weakly held object is not kept: work arriving after it went away finds nothing")
    func weakObjectIsNotKept() {
        let loop = ManualLoop()
        var object: Owned? = Owned()
        let bound = LoopBound(object!, on: loop)
        #expect(bound.submit { $0.visits += 1 })
        loop.turn()
        #expect(object?.visits == 1)
        object = nil
        #expect(bound.open() == nil)
        #expect(bound.submit { _ in Issue.record("work ran with an object that went away") })
        loop.turn()
    }

    @Test("A weakly held object's loop is not kept: once it went away, work is refused")
    func weakLoopIsNotKept() {
        let object = Owned()
        var loop: ManualLoop? = ManualLoop()
        let bound = LoopBound(object, on: loop!)
        loop = nil
        #expect(!bound.submit { $0.visits += 1 })
        #expect(object.visits == 0)
    }

    @Test("A counter's value is its own part plus the counter it adds")
    func counterAddsTheCounterItIncludes() {
        let inner = TransferCounter()
        let outer = TransferCounter(adding: inner)
        inner.increment()
        inner.increment()
        outer.increment()
        #expect((inner.value, outer.own, outer.value) == (2, 1, 3))
        inner.decrement()
        outer.decrement()
        #expect((inner.value, outer.own, outer.value) == (1, 0, 1))
    }
}
