@testable import CurlBridge
import Foundation
import Testing

/// ``CachingEngine`` alone, over an engine that records what it is told and a loop the test
/// turns by hand: where a request goes once its lookup is answered, and what a stopped or failed
/// lookup leaves. No transport, no server.
@Suite("CachingEngine: lookups answered through the loop")
struct CachingEngineTests {
    /// A loop whose work waits until the test runs it.
    final class ManualLoop: RequestLoop {
        private let queued = PosixLock<[Work]>([])

        func submit(isNewRequest: Bool, _ work: @escaping Work) -> Bool {
            queued.withLock { $0.append(work) }
            return true
        }

        /// Runs the work submitted so far, in order.
        func turn() {
            for work in queued.withLock({ queued in defer { queued = [] }; return queued }) { work() }
        }
    }

    /// An engine beneath the cache that records which requests it was told to begin.
    final class RecordingEngine: TransferEngine {
        private(set) var begun: [UInt64] = []
        let inFlight = TransferCounter()
        var isBusy: Bool { false }
        func begin(_ request: PreparedRequest, id: UInt64, receiver: any TransferReceiver) { begun.append(id) }
        func stop(_ id: UInt64) -> TransferProgress? { nil }
        func pauseReceiving(_ id: UInt64) {}
        func resumeReceiving(_ id: UInt64) {}
        func resumeSending(_ id: UInt64) {}
        func expire(at now: UInt64) -> UInt64? { nil }
        func failAll(_ error: RequestError) {}
        func rest(closed: Bool) {}
    }

    private let loop = ManualLoop()
    private let inner = RecordingEngine()
    private let store = HeldCacheStore()
    private let engine: CachingEngine

    init() {
        let cache = HTTPCache(store: store, limit: 8 << 20, clock: { Date(timeIntervalSince1970: 1_000_000) })
        let configuration = Configuration()
        engine = CachingEngine(
            cache: cache, inner: inner, loop: loop,
            partitioner: CachePartitioner(keyedHash: store.keyedHash, trust: CacheTrust(configuration), cookies: nil))
        store.release()
    }

    private func prepared(_ request: Request) throws -> PreparedRequest {
        try request.prepared(with: RequestDefaults(Configuration())).get()
    }

    /// Waits until the lookups read so far have handed their answers to the loop.
    private func lookupsRead() {
        engine.cache.lookupQueue.sync {}
    }

    @Test("A GET waits for its lookup; answered with nothing stored, it goes to the engine beneath on the loop's turn")
    func missForwardsAfterTheAnswer() throws {
        let receiver = RecordingReceiver()
        engine.begin(try prepared(.get("http://example/a")), id: 1, receiver: receiver)
        #expect(inner.begun.isEmpty, "nothing is sent before the lookup is answered")
        #expect(engine.isBusy, "a pending lookup keeps the loop polling for its answer, not spinning")

        lookupsRead()
        loop.turn()
        #expect(inner.begun == [1] && receiver.events.isEmpty)
        #expect(!engine.isBusy, "the engine beneath, idle here, has the request now")
    }

    @Test("A request that needs nothing stored goes beneath at once, without a lookup")
    func noStoreGoesAtOnce() throws {
        engine.begin(try prepared(.get("http://example/a").header("Cache-Control", "no-store")), id: 1, receiver: RecordingReceiver())
        #expect(inner.begun == [1])
    }

    @Test("A lookup stopped before its answer: the answer finds nothing, nothing is sent or reported")
    func stoppedLookupDropsItsAnswer() throws {
        let receiver = RecordingReceiver()
        engine.begin(try prepared(.get("http://example/a")), id: 1, receiver: receiver)
        #expect(engine.stop(1) == nil)

        lookupsRead()
        loop.turn()
        #expect(inner.begun.isEmpty && receiver.events.isEmpty)
    }

    @Test("A lookup stopped and its id begun again: the first answer is dropped, the second is used once")
    func staleAnswerForAReusedId() throws {
        let (first, second) = (RecordingReceiver(), RecordingReceiver())
        engine.begin(try prepared(.get("http://example/a")), id: 1, receiver: first)
        _ = engine.stop(1)
        engine.begin(try prepared(.get("http://example/a")), id: 1, receiver: second)

        lookupsRead()
        loop.turn()
        #expect(inner.begun == [1] && first.events.isEmpty && second.events.isEmpty)
    }

    @Test("failAll ends a pending lookup's request once; its late answer adds nothing")
    func failAllEndsPendingLookups() throws {
        let receiver = RecordingReceiver()
        engine.begin(try prepared(.get("http://example/a")), id: 1, receiver: receiver)
        engine.failAll(RequestError(.transportFailure, "the loop failed"))
        #expect(receiver.events == ["ended failure"])

        lookupsRead()
        loop.turn()
        #expect(receiver.events == ["ended failure"] && inner.begun.isEmpty)
    }
}
