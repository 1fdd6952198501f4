#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// One request answered by a stub instead of curl: the stub's task works out the answer off the
/// loop, then the loop plays it to the transfer's receiver — head, body pieces (pausing when the
/// receiver pauses), end — as curl's callbacks report a transfer. Confined to the loop.
final class StubExchange {
    /// The stub's answer, worked out off the loop.
    struct Answer: Sendable {
        /// The response, or the failure to report.
        let reply: Result<StubResponse, RequestError>
        /// How many body bytes the stub received.
        let bytesSent: Int64
    }

    /// Which begin this is, so an answer to an exchange that ended is told from one to its successor.
    let token: UInt64
    let request: PreparedRequest
    let receiver: any TransferReceiver
    /// Works out the answer; cancelled when the exchange ends first.
    var answering: Task<Void, Never>?
    private var answer: Answer?
    /// The successful answer, as it is played.
    private var playback: ResponsePlayback?
    private var isPaused = false

    init(token: UInt64, request: PreparedRequest, receiver: any TransferReceiver) {
        self.token = token
        self.request = request
        self.receiver = receiver
    }

    /// Records the answer and plays what it can; the end when the exchange is over, `nil` while
    /// the receiver holds the body paused.
    func receive(_ answer: Answer) -> TransferEnd? {
        self.answer = answer
        return isPaused ? nil : play()
    }

    /// Stops offering body pieces until ``resume()``.
    func pause() {
        isPaused = true
    }

    /// Offers the body again; the end when that ends the exchange.
    func resume() -> TransferEnd? {
        isPaused = false
        return answer == nil ? nil : play()
    }

    /// The final byte counts, when the receiver wants progress.
    func finalProgress() -> TransferProgress? {
        guard receiver.wantsProgress else { return nil }
        let sent = answer?.bytesSent ?? 0
        let received = Int64(responseBody?.count ?? 0)
        return TransferProgress(bytesReceived: received, expectedBytesToReceive: received, bytesSent: sent, expectedBytesToSend: sent)
    }

    /// The head, then the body, then the end.
    private func play() -> TransferEnd? {
        guard let answer else { return nil }
        let reply: StubResponse
        switch answer.reply {
        case .success(let response): reply = response
        case .failure(let error): return end(.failure(error))
        }
        if playback == nil {
            let head = ResponseHead(
                status: reply.status, headerFields: Self.completed(reply), httpVersion: reply.httpVersion, url: request.url)
            playback = ResponsePlayback(head: head, body: responseBody ?? Data())
        }
        switch playback!.play(to: receiver) {
        case .delivered: return end(.success(response(playback!.head, reply: reply)))
        case .paused:
            isPaused = true
            return nil
        case .refused(let error): return end(.failure(error))
        }
    }

    /// The exchange's end with `result`.
    private func end(_ result: Result<Response, RequestError>) -> TransferEnd {
        var end = TransferEnd(result: result, finalProgress: finalProgress())
        if request.reportsSentCookies {
            // curl's jar adds nothing to a stub's request: its cookies are its own `Cookie` lines.
            end.sentCookieLines = request.headerLines.filter { $0.isCurlHeaderLine(named: "cookie") }.map(Self.value)
        }
        return end
    }

    /// The value of a curl header line (`Name: value`, or `Name;` for an empty one).
    private static func value(_ line: String) -> String {
        guard let separator = line.firstIndex(where: { $0 == ":" || $0 == ";" }) else { return "" }
        return line[line.index(after: separator)...].trimmingWhitespace()
    }

    /// The body the response has: none for `HEAD`.
    private var responseBody: Data? {
        guard case .success(let reply)? = answer?.reply else { return nil }
        return request.method == .head ? Data() : reply.body
    }

    /// The response, its body left to the receiver's sink, as curl would describe it.
    private func response(_ head: ResponseHead, reply: StubResponse) -> Response {
        let received = Int64(responseBody?.count ?? 0)
        var metrics = TransferMetrics.zero
        metrics.firstByte = reply.delay
        metrics.total = reply.delay
        metrics.bytesSent = answer?.bytesSent ?? 0
        metrics.bytesReceived = received
        return Response(
            status: head.status, headerFields: head.headerFields, body: Data(), url: head.url,
            httpVersion: head.httpVersion, metrics: metrics, requestMethod: request.method, requestAccept: request.accept)
    }

    /// The stub's fields with a `Content-Length` when it has none and its status may carry a body.
    private static func completed(_ reply: StubResponse) -> HTTPFields {
        var fields = reply.headerFields
        if BodyPresence.statusAllowsBody(reply.status.code), fields[.contentLength] == nil, fields[.transferEncoding] == nil {
            fields[.contentLength] = String(reply.body.count)
        }
        return fields
    }
}
