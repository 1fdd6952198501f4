import Foundation

/// One request's transfer as the cache takes part in it, between the engine under the cache and
/// the request's receiver: it keeps a copy of a body that may be stored, hides a `304 Not
/// Modified` that revalidates a stored response, and plays a stored response in place of a
/// transfer. It decides nothing: ``CacheLookup`` and ``CacheAdmission`` do, in ``CachingEngine``.
/// Confined to the transport's loop.
final class CacheExchange: TransferReceiver {
    /// What the cache does with the transfer.
    enum Role {
        /// A miss: its response may be stored.
        case storing
        /// A revalidation of `stored`: a `304` is answered with it.
        case validating(StoredResponse)
        /// An unsafe method: a success makes stored responses invalid.
        case invalidating
        /// A stored (or synthesised) response, played without a transfer.
        case serving
    }

    let id: UInt64
    let request: CacheRequest
    let prepared: PreparedRequest
    let role: Role
    /// The request's receiver.
    let downstream: any TransferReceiver
    let maximumRecordedSize: Int
    /// When the request was sent, and when its head arrived, by the cache's clock.
    let requestTime: Date
    var responseTime: Date?
    /// The server answered a revalidation with `304`: its head and body are not the caller's.
    private(set) var isNotModified = false
    /// A copy of the body while it may still be stored.
    private(set) var recorded: Data?
    /// The response played in place of a transfer.
    var play: CachePlay?
    /// The engine the transfer's end goes back to, to decide what the cache does with it.
    unowned let engine: CachingEngine

    init(engine: CachingEngine, id: UInt64, request: CacheRequest, prepared: PreparedRequest, role: Role,
         downstream: any TransferReceiver, requestTime: Date) {
        self.engine = engine
        self.id = id
        self.request = request
        self.prepared = prepared
        self.role = role
        self.downstream = downstream
        maximumRecordedSize = engine.cache.maximumEntrySize
        self.requestTime = requestTime
    }

    var wantsHeads: Bool { downstream.wantsHeads }

    var wantsProgress: Bool { downstream.wantsProgress }

    func transferWillReceiveBody(declaredLength: Int64?, status: Int) -> RequestError? {
        responseTime = engine.cache.now()
        if case .validating = role, status == 304 {
            isNotModified = true
            return nil
        }
        let mayStore: Bool = switch role {
        case .storing, .validating: request.method == .get
        case .invalidating, .serving: false
        }
        if mayStore, declaredLength.map({ $0 <= maximumRecordedSize }) ?? true {
            recorded = Data()
        }
        return downstream.transferWillReceiveBody(declaredLength: declaredLength, status: status)
    }

    func transferReceivedHead(_ head: ResponseHead) -> RequestError? {
        if isNotModified { return nil }
        var head = head
        if case .storing = role { head.cacheStatus = .miss }
        if case .validating = role { head.cacheStatus = .miss }
        return downstream.transferReceivedHead(head)
    }

    func transferReceivedBody(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        if isNotModified { return .accept }
        let verdict = downstream.transferReceivedBody(bytes)
        // Only bytes the receiver took: paused ones come again.
        if case .accept = verdict, recorded != nil {
            if recorded!.count + bytes.count > maximumRecordedSize {
                recorded = nil
            } else {
                recorded!.append(contentsOf: bytes)
            }
        }
        return verdict
    }

    func transferProgressed(_ progress: TransferProgress) {
        if !isNotModified { downstream.transferProgressed(progress) }
    }

    func transferEnded(_ end: TransferEnd) {
        engine.exchangeEnded(self, end)
    }
}
