@testable import CurlBridge
import Foundation

/// A transfer receiver that records each call and answers as the test scripts it.
final class RecordingReceiver: TransferReceiver {
    var wantsHeads = true
    var wantsProgress = false
    var collectsBody = true
    var refusesBody: RequestError?
    /// The verdict for each body piece offered, first to last; `.accept` once they run out.
    var verdicts: [BodyChunkVerdict] = []
    private(set) var events: [String] = []
    private(set) var received = Data()

    func transferWillReceiveBody(declaredLength: Int64?, status: Int) -> RequestError? {
        events.append("body \(declaredLength.map(String.init) ?? "-") \(status)")
        return refusesBody
    }

    func transferReceivedHead(_ head: ResponseHead) -> RequestError? {
        events.append("head \(head.status.code)")
        return nil
    }

    func transferReceivedBody(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        let verdict = verdicts.isEmpty ? .accept : verdicts.removeFirst()
        events.append("piece \(bytes.count)")
        if case .accept = verdict { received.append(contentsOf: bytes) }
        return verdict
    }

    func transferProgressed(_ progress: TransferProgress) {}

    func transferEnded(_ end: TransferEnd) {
        switch end.result {
        case .success(let response): events.append("ended \(response.status.code)")
        case .failure: events.append("ended failure")
        }
    }
}
