#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A complete response played to a transfer's receiver as curl's callbacks report a transfer:
/// the body's announcement, the head (when wanted), then body pieces, stopping while the
/// receiver pauses. What a stub answers and what a cache serves are played so.
struct ResponsePlayback {
    /// The largest body piece offered at once.
    static let chunkSize = 64 << 10

    let head: ResponseHead
    let body: Data
    private var headPlayed = false
    /// Body bytes the receiver has taken.
    private(set) var delivered = 0

    /// How far a play went.
    enum Step {
        /// The whole response was delivered.
        case delivered
        /// The receiver paused: play again when it resumes.
        case paused
        /// The receiver refused it.
        case refused(RequestError)
    }

    init(head: ResponseHead, body: Data) {
        self.head = head
        self.body = body
    }

    /// Offers `receiver` what it has not taken yet.
    mutating func play(to receiver: any TransferReceiver) -> Step {
        if !headPlayed {
            headPlayed = true
            let declared = head.headerFields[.contentLength].flatMap { Int64($0) }
            if let refusal = receiver.transferWillReceiveBody(declaredLength: declared, status: head.status.code) {
                return .refused(refusal)
            }
            if receiver.wantsHeads, let refusal = receiver.transferReceivedHead(head) { return .refused(refusal) }
        }
        while delivered < body.count {
            let next = min(delivered + Self.chunkSize, body.count)
            switch body[delivered..<next].withUnsafeBytes({ receiver.transferReceivedBody($0) }) {
            case .accept: delivered = next
            case .pause: return .paused
            case .fail(let error): return .refused(error)
            }
        }
        return .delivered
    }
}
