#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// Where a response body goes, whichever engine receives it: memory under the request's cap
/// (``MemoryBodySink``, a plain send), a file (``DownloadOperation``), or a stream's bounded
/// buffer (``ResponseBodyBuffer``). Called on the transport's loop, in order.
protocol BodySink: AnyObject {
    /// Takes a piece of the body, valid only during the call.
    func write(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict
    /// Whether the sink announces what it took only when the loop's turn ends: ``turnDidEnd()``
    /// is then called after every turn in which it took a piece of a transfer's body. (Pieces
    /// given at the request's completion, a held response's body, are announced by the end that
    /// follows them.) `false` unless a sink says so.
    var announcesAtTurnEnd: Bool { get }
    /// The loop's turn, in which the sink took pieces, ended (when ``announcesAtTurnEnd``).
    func turnDidEnd()
}

extension BodySink {
    var announcesAtTurnEnd: Bool { false }

    func turnDidEnd() {}
}

/// What a body sink says about the piece it was offered.
enum BodyChunkVerdict: Sendable {
    /// The piece is consumed; keep going.
    case accept
    /// The piece is *not* consumed: the transfer pauses (and is not idle), and the same bytes are
    /// offered again after the transfer is resumed.
    case pause
    /// The transfer must stop and complete with this error.
    case fail(RequestError)
}

/// A response body collected in memory, capped at the request's ``Configuration/maximumBodySize``:
/// a body declared larger is refused at its head, one that grows larger fails when it does.
/// Confined to the loop.
final class MemoryBodySink: BodySink {
    /// The cap, in bytes.
    private let limit: Int
    /// The request's method and URL, for the errors.
    private let method: HTTPRequest.Method
    private let url: String
    /// The body so far.
    private(set) var data = Data()

    init(for request: PreparedRequest) {
        method = request.method
        url = request.url
        limit = request.maximumBodySize
    }

    /// Why a head that declares `length` body bytes cannot be collected, if it cannot: above the
    /// cap, for a response that has a body. Reserves room for it otherwise.
    func refusal(declaredLength length: Int64?, status: Int) -> RequestError? {
        guard let length, length > 0, BodyPresence.responseHasBody(method: method, status: status) else { return nil }
        guard length <= limit else {
            return RequestError(
                .bodyTooLarge, "the response declares \(length) body bytes, above the in-memory cap of \(limit) bytes",
                method: method, url: url)
        }
        data.reserveCapacity(Int(length))
        return nil
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        guard data.count + bytes.count <= limit else {
            return .fail(RequestError(
                .bodyTooLarge, "the body exceeds the in-memory cap of \(limit) bytes", method: method, url: url))
        }
        data.append(bytes.bindMemory(to: UInt8.self))
        return .accept
    }

    /// The body collected, leaving the sink empty.
    func take() -> Data {
        defer { data = Data() }
        return data
    }
}
