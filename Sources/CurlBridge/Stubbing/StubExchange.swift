import Foundation
import HTTPTypes

/// One request answered by a stub instead of curl: the stub's task works out the answer off the
/// loop, then the loop delivers it — head, body chunks with pauses, final progress — through the
/// same ``TransferEvents`` a curl transfer reports to. Confined to the loop, like a transfer.
final class StubExchange {
    /// The stub's answer, worked out off the loop.
    struct Answer: Sendable {
        /// The response, or the failure to report.
        let reply: Result<StubResponse, RequestError>
        /// How many body bytes the stub received.
        let bytesSent: Int64
    }

    /// The largest body chunk offered to a streaming consumer at once.
    static let chunkSize = 64 << 10

    let id: UInt64
    let request: PreparedRequest
    let events: TransferEvents
    /// Works out the answer; cancelled when the exchange ends first.
    var answering: Task<Void, Never>?
    private var answer: Answer?
    private var headDelivered = false
    /// Body bytes a streaming consumer has taken.
    private var delivered = 0
    private var isPaused = false

    init(id: UInt64, request: PreparedRequest, events: TransferEvents) {
        self.id = id
        self.request = request
        self.events = events
    }

    /// Records the answer and delivers what it can; the outcome when the exchange is over, `nil`
    /// while a consumer holds the body paused.
    func receive(_ answer: Answer) -> Result<Response, RequestError>? {
        self.answer = answer
        return isPaused ? nil : deliver()
    }

    /// Stops offering body chunks until ``resume()``.
    func pause() {
        isPaused = true
    }

    /// Offers the body again; the outcome when that ends the exchange.
    func resume() -> Result<Response, RequestError>? {
        isPaused = false
        return answer == nil ? nil : deliver()
    }

    /// Reports the final byte counts, as a transfer does just before its outcome.
    func reportFinalProgress() {
        guard let onProgress = events.onProgress else { return }
        let sent = answer?.bytesSent ?? 0
        let received = Int64(responseBody?.count ?? 0)
        onProgress(TransferProgress(
            bytesReceived: received, expectedBytesToReceive: received, bytesSent: sent, expectedBytesToSend: sent))
    }

    /// The head, then the body (to the consumer, or collected), then the response.
    private func deliver() -> Result<Response, RequestError>? {
        guard let answer else { return nil }
        let reply: StubResponse
        switch answer.reply {
        case .success(let response): reply = response
        case .failure(let error): return .failure(error.attributed(to: request.method, url: request.url))
        }
        let head = ResponseHead(
            status: reply.status, headerFields: Self.completed(reply), httpVersion: reply.httpVersion, url: request.url)
        if !headDelivered {
            headDelivered = true
            if let refusal = events.onResponseHead?(head) { return .failure(refusal.attributed(to: request.method, url: request.url)) }
        }
        let body = responseBody ?? Data()
        if let consume = events.onBodyChunk {
            while delivered < body.count {
                let end = min(delivered + Self.chunkSize, body.count)
                let verdict = body[delivered..<end].withUnsafeBytes { consume($0) }
                switch verdict {
                case .accept: delivered = end
                case .pause:
                    isPaused = true
                    return nil
                case .fail(let error): return .failure(error.attributed(to: request.method, url: request.url))
                }
            }
            return .success(response(head, body: Data(), reply: reply))
        }
        guard body.count <= request.maximumBodySize else {
            return .failure(RequestError(
                .bodyTooLarge, "the body exceeds the in-memory cap of \(request.maximumBodySize) bytes",
                method: request.method, url: request.url))
        }
        return .success(response(head, body: body, reply: reply))
    }

    /// The body the response has: none for `HEAD`.
    private var responseBody: Data? {
        guard case .success(let reply)? = answer?.reply else { return nil }
        return request.method == .head ? Data() : reply.body
    }

    private func response(_ head: ResponseHead, body: Data, reply: StubResponse) -> Response {
        let received = Int64(responseBody?.count ?? 0)
        let metrics = TransferMetrics(
            nameLookup: .zero, connect: .zero, tlsHandshake: .zero, preTransfer: .zero, firstByte: reply.delay,
            total: reply.delay, bytesSent: answer?.bytesSent ?? 0, bytesReceived: received, headerBytes: 0,
            reusedConnection: false, localPort: 0, remoteAddress: "", remotePort: 0)
        return Response(
            status: head.status, headerFields: head.headerFields, body: body, url: head.url,
            httpVersion: head.httpVersion, metrics: metrics, requestMethod: request.method, requestAccept: request.accept)
    }

    /// The stub's fields with a `Content-Length` when it has none and its status may carry a body.
    private static func completed(_ reply: StubResponse) -> HTTPFields {
        var fields = reply.headerFields
        let code = reply.status.code
        let hasBodyStatus = code >= 200 && code != 204 && code != 304
        if hasBodyStatus, fields[.contentLength] == nil, fields[.transferEncoding] == nil {
            fields[.contentLength] = String(reply.body.count)
        }
        return fields
    }
}
