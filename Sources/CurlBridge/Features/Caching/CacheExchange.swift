#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request's transfer as the cache takes part in it, between the engine under the cache and
/// the request's receiver: an adapter that asks its ``CacheExchangeState`` what the receiver sees
/// and what is recorded, and hands the end back to ``CachingEngine``. It decides nothing.
/// Confined to the transport's loop.
final class CacheExchange: TransferReceiver {
    let id: UInt64
    /// Which exchange of the id this is: a lookup's answer or a play's turn carrying another
    /// number is for a stopped one.
    let number: UInt64
    /// The request's receiver.
    let downstream: any TransferReceiver
    var state: CacheExchangeState
    /// The engine the transfer's end goes back to, and whose clock times the heads.
    unowned let engine: CachingEngine

    init(engine: CachingEngine, id: UInt64, number: UInt64, downstream: any TransferReceiver, state: CacheExchangeState) {
        self.engine = engine
        self.id = id
        self.number = number
        self.downstream = downstream
        self.state = state
    }

    var wantsHeads: Bool { downstream.wantsHeads }

    var wantsProgress: Bool { downstream.wantsProgress }

    var collectsBody: Bool { downstream.collectsBody }

    func transferWillReceiveBody(declaredLength: Int64?, status: Int) -> RequestError? {
        guard state.headArrived(status: status, declaredLength: declaredLength, at: engine.cache.now()) else { return nil }
        return downstream.transferWillReceiveBody(declaredLength: declaredLength, status: status)
    }

    func transferReceivedHead(_ head: ResponseHead) -> RequestError? {
        guard !state.hidesResponse else { return nil }
        var head = head
        if let status = state.headCacheStatus { head.cacheStatus = status }
        return downstream.transferReceivedHead(head)
    }

    func transferReceivedBody(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        guard !state.hidesResponse else { return .accept }
        let verdict = downstream.transferReceivedBody(bytes)
        // Only bytes the receiver took: paused ones come again.
        if case .accept = verdict { state.pieceTaken(bytes) }
        return verdict
    }

    func transferProgressed(_ progress: TransferProgress) {
        if !state.hidesResponse { downstream.transferProgressed(progress) }
    }

    func transferEnded(_ end: consuming TransferEnd) {
        engine.exchangeEnded(self, end)
    }
}
