#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// A stored (or synthesised, or revalidated) response played to a request's receiver in place of
/// a transfer: where the play is, the success it ends with, and whether the receiver paused it.
struct CachePlay {
    var playback: ResponsePlayback
    /// The success reported once the whole response is delivered (its body left to the sink).
    let response: Response
    /// The receiver paused it (by a verdict or its handle): the next turn plays nothing; a resume does.
    var isPaused = false

    /// `stored`'s status, version and body (none for a `HEAD`) with `fields`, answering `prepared`,
    /// ending with `metrics`.
    init(_ stored: StoredResponse, fields: HTTPFields, metrics: TransferMetrics, answering prepared: PreparedRequest) {
        let head = ResponseHead(
            status: stored.status, headerFields: fields, httpVersion: stored.httpVersion, url: prepared.url,
            cacheStatus: metrics.cacheStatus)
        playback = ResponsePlayback(head: head, body: prepared.method == .head ? Data() : stored.body)
        response = Response(
            status: head.status, headerFields: fields, body: Data(), url: head.url, httpVersion: head.httpVersion,
            metrics: metrics, requestMethod: prepared.method, requestAccept: prepared.accept)
    }

    /// The final byte counts of the play so far, when the receiver wants progress.
    func progress(wanted: Bool) -> TransferProgress? {
        guard wanted else { return nil }
        return TransferProgress(
            bytesReceived: Int64(playback.delivered), expectedBytesToReceive: Int64(playback.body.count), bytesSent: 0, expectedBytesToSend: 0)
    }
}
