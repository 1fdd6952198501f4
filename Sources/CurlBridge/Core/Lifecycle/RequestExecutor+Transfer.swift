#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The executor receives its transfers' events and routes them through the machine.
extension RequestExecutor: TransferReceiver {
    var wantsHeads: Bool { machine.setup.consumer.decidesAtHead || hasMonitors }

    var wantsProgress: Bool { downstream.onProgress != nil }

    var collectsBody: Bool { memory.isCollecting }

    func transferWillReceiveBody(declaredLength: Int64?, status: Int) -> RequestError? {
        memory.refusal(declaredLength: declaredLength, status: status)
    }

    func transferReceivedHead(_ head: ResponseHead) -> RequestError? {
        if hasMonitors { observe(.receivedHead(head, attempt: machine.attempt)) }
        switch machine.receivedHead(head) {
        case .proceed:
            return nil
        case .follow(let notice):
            perform(notice)
            return nil
        case .deliver(let head):
            return downstream.onResponseHead?(head)
        case .fail(let error):
            return error
        }
    }

    func transferReceivedBody(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        switch machine.receivedBody(bytes) {
        case .collect:
            return memory.write(bytes)
        case .absorb:
            return .accept
        case .stop(let error):
            return .fail(error)
        case .consume(let replay):
            return consume(bytes, after: replay)
        case .release(let head, let held):
            if let refusal = downstream.onResponseHead?(head) { return .fail(refusal) }
            return consume(bytes, after: held)
        }
    }

    /// Offers the consumer `replay` — held bytes it has not taken yet — if any, then `bytes`.
    private func consume(_ bytes: UnsafeRawBufferPointer, after replay: Data?) -> BodyChunkVerdict {
        guard let sink = downstream.body else { return .accept }
        if let replay {
            let verdict = replay.withUnsafeBytes { sink.write($0) }
            guard case .accept = verdict else { return verdict }
            machine.replayDelivered()
        }
        let verdict = sink.write(bytes)
        if sink.announcesAtTurnEnd, !awaitsTurnEnd {
            awaitsTurnEnd = true
            registry?.callAtTurnEnd(self)
        }
        return verdict
    }

    /// The loop's turn in which the body sink took pieces ended: it may announce them.
    func turnDidEnd() {
        awaitsTurnEnd = false
        downstream.body?.turnDidEnd()
    }

    func transferProgressed(_ progress: TransferProgress) {
        if machine.forwardsProgress { downstream.onProgress?(progress) }
    }

    func transferEnded(_ end: consuming TransferEnd) {
        let forwardsProgress = machine.forwardsProgress
        let closingSession = end.failedOnClosingSession
        let finalProgress = end.finalProgress
        let moment = moment  // one clock reading for both calls below
        var result = withCollectedBody(end.result)
        // A plain request's ordinary end completes it here; every other end is decided below.
        if case .complete(let duration) = machine.endPlainly(&result, at: moment) {
            if forwardsProgress, let progress = finalProgress { downstream.onProgress?(progress) }
            return complete(consume result, releasing: nil, duration: duration)
        }
        let actions = machine.transferEnded(result, closingSession: closingSession, at: moment)
        // A hop sent again after its session closed is the same transfer to the consumer.
        let isResent = actions.contains { if case .send(_, .resend) = $0 { true } else { false } }
        if !isResent, forwardsProgress, let progress = finalProgress { downstream.onProgress?(progress) }
        perform(actions)
    }

    /// `result` with the body collected in memory, if it is collected: moved in and out of the
    /// enum, so the response is not copied to take its body.
    private func withCollectedBody(_ result: consuming Result<Response, RequestError>) -> Result<Response, RequestError> {
        guard memory.isCollecting else { return result }
        switch consume result {
        case .success(var response):
            response.body = memory.take()
            return .success(response)
        case let failure:
            return failure
        }
    }
}
