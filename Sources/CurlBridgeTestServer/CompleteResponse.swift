import Foundation
import NIOCore
import NIOHTTP1

/// A response whose status, headers and whole body are known up front.
///
/// When written, `Content-Length` is added from the body unless the headers already carry one.
struct CompleteResponse {
    /// The status to send.
    var status: HTTPResponseStatus
    /// The headers to send (framing headers are completed by the writer).
    var headers: HTTPHeaders
    /// The body to send (omitted on the wire for `HEAD` and body-less statuses).
    var body: ByteBuffer

    /// A response with exactly these parts; no body by default.
    init(status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a UTF-8 body and the given content type.
    init(status: HTTPResponseStatus, contentType: String, body: String) {
        self.init(status: status, headers: ["Content-Type": contentType], body: ByteBuffer(string: body))
    }

    /// A short `text/plain` response, e.g. for errors.
    static func text(_ status: HTTPResponseStatus, _ text: String) -> CompleteResponse {
        CompleteResponse(status: status, contentType: "text/plain; charset=utf-8", body: text + "\n")
    }

    /// A `400 Bad Request` explaining what was wrong with the request.
    static func badRequest(_ reason: String) -> CompleteResponse {
        .text(.badRequest, "bad request: " + reason)
    }

    /// A `200` with `value` as JSON (sorted keys, unescaped slashes), or a `500` if it cannot be
    /// encoded.
    static func json(_ value: some Encodable) -> CompleteResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let json = try encoder.encode(value)
            let headers: HTTPHeaders = ["Content-Type": "application/json"]
            return CompleteResponse(status: .ok, headers: headers, body: ByteBuffer(bytes: json))
        } catch {
            return .text(.internalServerError, "cannot encode \(type(of: value)) as JSON: \(error)")
        }
    }
}
