@testable import CurlBridge
import Foundation
import Testing

/// ``CachingEngine`` alone, over an engine that records what it is told and a loop the test
/// turns by hand: where a request goes once its lookup is answered, what a stopped or failed
/// lookup or play leaves, the order of a transfer's end (out of the table, then stored, then
/// heard), and ``CacheExchange`` between the engine beneath and the receiver. No transport, no
/// server.
@Suite("CachingEngine: lookups answered through the loop, plays, ends")
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

    /// An engine beneath the cache that records which requests it was told to begin (and keeps
    /// their receivers, for the test to drive a transfer) and to pause.
    final class RecordingEngine: TransferEngine {
        private(set) var begun: [UInt64] = []
        private(set) var paused: [UInt64] = []
        private(set) var receivers: [UInt64: any TransferReceiver] = [:]
        let inFlight = TransferCounter()
        var isBusy: Bool { false }
        func begin(_ request: PreparedRequest, id: UInt64, receiver: any TransferReceiver) {
            begun.append(id)
            receivers[id] = receiver
        }
        func stop(_ id: UInt64) -> TransferProgress? { nil }
        func pauseReceiving(_ id: UInt64) { paused.append(id) }
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

    /// Runs the lookups read so far and the work they submitted, then the plays they scheduled.
    private func settle() {
        lookupsRead()
        loop.turn()
        loop.turn()
    }

    /// Sends a GET for `url` as request `id` through a miss, and answers it beneath with a
    /// storable 200 of `body`, heard by `receiver`.
    private func fetch(_ url: String, id: UInt64, body: String, receiver: any TransferReceiver) throws {
        engine.begin(try prepared(.get(url)), id: id, receiver: receiver)
        settle()
        let beneath = try #require(inner.receivers[id])
        _ = beneath.transferWillReceiveBody(declaredLength: Int64(body.utf8.count), status: 200)
        _ = beneath.transferReceivedHead(ResponseHead(status: .ok, headerFields: [:], httpVersion: .http1_1, url: url, cacheStatus: .bypassed))
        _ = Data(body.utf8).withUnsafeBytes { beneath.transferReceivedBody($0) }
        beneath.transferEnded(TransferEnd(result: .success(Response(
            status: .ok, headerFields: [.cacheControl: "max-age=60", .contentLength: String(body.utf8.count)], body: Data(), url: url,
            httpVersion: .http1_1, metrics: .zero))))
    }

    /// Begins a GET for `http://example/a` as request `id` and answers its lookup: its play
    /// waits for the loop's next turn.
    private func schedulePlay(id: UInt64, receiver: any TransferReceiver) throws {
        engine.begin(try prepared(.get("http://example/a")), id: id, receiver: receiver)
        lookupsRead()
        loop.turn()
    }

    @Test("A hit plays on the loop's turn and counts in flight until it ends; a stopped hit's turn does nothing")
    func hitsCountInFlight() throws {
        try fetch("http://example/a", id: 1, body: "ok", receiver: RecordingReceiver())
        let hit = RecordingReceiver()
        try schedulePlay(id: 2, receiver: hit)
        #expect(engine.inFlight.value == 1 && engine.isBusy && hit.events.isEmpty, "scheduled for the next turn")
        loop.turn()
        #expect(hit.events == ["body 2 200", "head 200", "piece 2", "ended 200"] && hit.received == Data("ok".utf8))
        #expect(engine.inFlight.value == 0 && !engine.isBusy)

        let stopped = RecordingReceiver()
        try schedulePlay(id: 3, receiver: stopped)
        #expect(engine.stop(3) == nil, "the receiver wants no progress")
        loop.turn()
        #expect(stopped.events.isEmpty && engine.inFlight.value == 0 && !engine.isBusy)
    }

    @Test("A hit stopped and its id begun again: the old turn is dropped, the new one plays once")
    func reusedIdDropsTheOldTurn() throws {
        try fetch("http://example/a", id: 1, body: "ok", receiver: RecordingReceiver())
        let (first, second) = (RecordingReceiver(), RecordingReceiver())
        try schedulePlay(id: 2, receiver: first)
        _ = engine.stop(2)
        engine.begin(try prepared(.get("http://example/a")), id: 2, receiver: second)
        settle()
        #expect(first.events.isEmpty && second.events == ["body 2 200", "head 200", "piece 2", "ended 200"])
        #expect(engine.inFlight.value == 0)
    }

    @Test("failAll ends a play once, with the progress it made, and leaves nothing in flight")
    func failAllEndsAPlay() throws {
        try fetch("http://example/a", id: 1, body: "ok", receiver: RecordingReceiver())
        let hit = ProgressReceiver()
        try schedulePlay(id: 2, receiver: hit)
        engine.failAll(RequestError(.transportFailure, "the loop failed"))
        loop.turn()
        #expect(hit.ends == ["failure 0/2"] && engine.inFlight.value == 0 && !engine.isBusy)
    }

    @Test("A pause asked during the lookup reaches the transfer once it is sent; a stopped lookup or failAll leaves the engine idle")
    func pauseDuringTheLookup() throws {
        engine.begin(try prepared(.get("http://example/a")), id: 1, receiver: RecordingReceiver())
        engine.pauseReceiving(1)
        #expect(inner.paused.isEmpty)
        settle()
        #expect(inner.begun == [1] && inner.paused == [1])

        engine.begin(try prepared(.get("http://example/b")), id: 2, receiver: RecordingReceiver())
        _ = engine.stop(2)
        #expect(!engine.isBusy)
        engine.begin(try prepared(.get("http://example/c")), id: 3, receiver: RecordingReceiver())
        engine.failAll(RequestError(.transportFailure, "the loop failed"))
        #expect(!engine.isBusy)
    }

    @Test("A transfer's end leaves the table before its receiver hears it: the receiver may begin the same id again")
    func endLeavesTheTableFirst() throws {
        let again = RecordingReceiver()
        let first = EndHook { [engine, self] in
            engine.begin(try! prepared(.get("http://example/b")), id: 1, receiver: again)
        }
        engine.begin(try prepared(.get("http://example/a")), id: 1, receiver: first)
        settle()
        let beneath = try #require(inner.receivers[1])
        beneath.transferEnded(TransferEnd(result: .failure(RequestError(.transportFailure, "the connection broke"))))
        settle()
        #expect(first.ended && inner.begun == [1, 1], "the new exchange looked up and was sent")
        let second = try #require(inner.receivers[1])
        second.transferEnded(TransferEnd(result: .success(Response(
            status: .ok, headerFields: [:], body: Data(), url: "http://example/b", httpVersion: .http1_1, metrics: .zero))))
        #expect(again.events == ["ended 200"])
    }

    @Test("A transfer's end stores before its receiver hears it: a lookup begun from the end is served what was stored")
    func storeComesBeforeTheEnd() throws {
        let hit = RecordingReceiver()
        let first = EndHook { [engine, self] in
            engine.begin(try! prepared(.get("http://example/a")), id: 2, receiver: hit)
        }
        try fetch("http://example/a", id: 1, body: "ok", receiver: first)
        #expect(first.ended)
        settle()
        #expect(hit.events == ["body 2 200", "head 200", "piece 2", "ended 200"] && hit.received == Data("ok".utf8))
        #expect(inner.begun == [1], "served, not sent")
    }

    @Test("CacheExchange records only the pieces its receiver took: a paused piece offered again is stored once")
    func pausedPieceIsRecordedOnce() throws {
        let receiver = RecordingReceiver()
        receiver.verdicts = [.pause]
        engine.begin(try prepared(.get("http://example/a")), id: 1, receiver: receiver)
        settle()
        let beneath = try #require(inner.receivers[1])
        _ = beneath.transferWillReceiveBody(declaredLength: 2, status: 200)
        for _ in 0..<2 { _ = Data("ok".utf8).withUnsafeBytes { beneath.transferReceivedBody($0) } }
        beneath.transferEnded(TransferEnd(result: .success(Response(
            status: .ok, headerFields: [.cacheControl: "max-age=60"], body: Data(), url: "http://example/a", httpVersion: .http1_1, metrics: .zero))))
        let hit = RecordingReceiver()
        engine.begin(try prepared(.get("http://example/a")), id: 2, receiver: hit)
        settle()
        #expect(hit.received == Data("ok".utf8))
    }

    @Test("CacheExchange marks a head that may be stored a miss, leaves an unsafe method's unmarked, and a refused announcement goes back beneath")
    func headsAndRefusals() throws {
        final class Heads: TransferReceiver {
            var statuses: [CacheStatus] = []
            var refusal: RequestError?
            var wantsHeads: Bool { true }
            var wantsProgress: Bool { false }
            var collectsBody: Bool { true }
            func transferWillReceiveBody(declaredLength: Int64?, status: Int) -> RequestError? { refusal }
            func transferReceivedHead(_ head: ResponseHead) -> RequestError? {
                statuses.append(head.cacheStatus)
                return nil
            }
            func transferReceivedBody(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict { .accept }
            func transferProgressed(_ progress: TransferProgress) {}
            func transferEnded(_ end: TransferEnd) {}
        }
        let head = ResponseHead(status: .ok, headerFields: [:], httpVersion: .http1_1, url: "http://example/a", cacheStatus: .bypassed)
        let (get, post) = (Heads(), Heads())
        engine.begin(try prepared(.get("http://example/a")), id: 1, receiver: get)
        engine.begin(try prepared(.post("http://example/a")), id: 2, receiver: post)
        settle()
        for id: UInt64 in [1, 2] { _ = try #require(inner.receivers[id]).transferReceivedHead(head) }
        #expect(get.statuses == [.miss] && post.statuses == [.bypassed])

        let refused = Heads()
        refused.refusal = RequestError(.bodyTooLarge, "too large")
        engine.begin(try prepared(.get("http://example/c")), id: 3, receiver: refused)
        settle()
        #expect(try #require(inner.receivers[3]).transferWillReceiveBody(declaredLength: 9, status: 200)?.code == .bodyTooLarge)
    }

    /// A receiver that runs `onEnd` when its transfer ends.
    final class EndHook: TransferReceiver {
        private let onEnd: () -> Void
        private(set) var ended = false
        init(_ onEnd: @escaping () -> Void) { self.onEnd = onEnd }
        var wantsHeads: Bool { false }
        var wantsProgress: Bool { false }
        var collectsBody: Bool { true }
        func transferWillReceiveBody(declaredLength: Int64?, status: Int) -> RequestError? { nil }
        func transferReceivedHead(_ head: ResponseHead) -> RequestError? { nil }
        func transferReceivedBody(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict { .accept }
        func transferProgressed(_ progress: TransferProgress) {}
        func transferEnded(_ end: TransferEnd) {
            ended = true
            onEnd()
        }
    }

    /// A receiver that wants progress and records how each end came, with its final counts.
    final class ProgressReceiver: TransferReceiver {
        private(set) var ends: [String] = []
        var wantsHeads: Bool { true }
        var wantsProgress: Bool { true }
        var collectsBody: Bool { true }
        func transferWillReceiveBody(declaredLength: Int64?, status: Int) -> RequestError? { nil }
        func transferReceivedHead(_ head: ResponseHead) -> RequestError? { nil }
        func transferReceivedBody(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict { .accept }
        func transferProgressed(_ progress: TransferProgress) {}
        func transferEnded(_ end: TransferEnd) {
            let counts = end.finalProgress.map { " \($0.bytesReceived)/\($0.expectedBytesToReceive ?? -1)" } ?? ""
            switch end.result {
            case .success(let response): ends.append("\(response.status.code)\(counts)")
            case .failure: ends.append("failure\(counts)")
            }
        }
    }
}
