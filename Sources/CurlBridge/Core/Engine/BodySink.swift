#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// Where a response body goes, whichever engine receives it, when a consumer takes it: a file
/// (``DownloadOperation``) or a stream's bounded buffer (``ResponseBodyBuffer``); a plain send
/// collects it in memory instead, under the request's cap (``MemoryBody``, inside its executor).
/// Called on the transport's loop, in order.
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
