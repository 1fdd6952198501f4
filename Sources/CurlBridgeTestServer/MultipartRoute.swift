import Foundation
import MultipartKit
import NIOCore

/// What `/multipart` found in a `multipart/form-data` body, parsed by multipart-kit.
public struct MultipartReply: Codable, Sendable, Equatable {
    /// One part.
    public struct Part: Codable, Sendable, Equatable {
        /// The part's headers as received, `[[name, value]]`.
        public var headers: [[String]]
        /// The `name` parameter of its `Content-Disposition`, as written (escapes kept).
        public var name: String?
        /// The `filename` parameter of its `Content-Disposition`, as written.
        public var filename: String?
        /// Its `Content-Type`, if any.
        public var contentType: String?
        /// Its body length in bytes.
        public var size: Int
        /// Its body, base64.
        public var body: String
    }

    /// The boundary from the request's `Content-Type`.
    public var boundary: String
    /// The request's `Content-Length`, if it had one (else it came chunked).
    public var contentLength: String?
    /// The parts, in order.
    public var parts: [Part]
}

/// `/multipart`: parses the body with multipart-kit's `MultipartParser` and reports each part.
enum MultipartRoute {
    static func response(to request: ReceivedRequest) -> CompleteResponse {
        guard let contentType = request.head.headers.first(name: "Content-Type"),
              let boundary = parameter("boundary", in: contentType)
        else { return .badRequest("no multipart boundary in Content-Type") }
        var parts: [MultipartReply.Part] = []
        var headers: [[String]] = []
        var body: [UInt8] = []
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in headers.append([name, value]) }
        parser.onBody = { buffer in body += buffer.readBytes(length: buffer.readableBytes) ?? [] }
        parser.onPartComplete = {
            let disposition = headers.first { $0[0].lowercased() == "content-disposition" }?[1] ?? ""
            parts.append(MultipartReply.Part(
                headers: headers, name: parameter("name", in: disposition), filename: parameter("filename", in: disposition),
                contentType: headers.first { $0[0].lowercased() == "content-type" }?[1],
                size: body.count, body: Data(body).base64EncodedString()))
            headers = []
            body = []
        }
        do {
            try parser.execute(request.body)
        } catch {
            return .badRequest("multipart-kit could not parse the body: \(error)")
        }
        let reply = MultipartReply(
            boundary: boundary, contentLength: request.head.headers.first(name: "Content-Length"), parts: parts)
        return .json(reply)
    }

    /// The value of `name=value` or `name="value"` among a header's `;`-separated parameters.
    static func parameter(_ name: String, in header: String) -> String? {
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            let value = pair[1]
            return value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 ? String(value.dropFirst().dropLast()) : value
        }
        return nil
    }
}
