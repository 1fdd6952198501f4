#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// What a stubbed transport answers a request with (see ``Transport/init(configuration:stub:)``):
/// a response — status, headers, body — or a failure, either after an optional delay.
///
/// The answer goes through everything a network response does: redirects are followed, retries
/// and interceptors run, streaming consumers and downloads get the body in chunks with
/// backpressure, the in-memory body cap applies, and a delay longer than the request's total or
/// idle timeout fails it with that timeout. A `Content-Length` field is added when the answer
/// has none (except for a `1xx`, `204` or `304` status); a `HEAD` request's answer has no body.
public struct StubResponse: Sendable {
    /// The status.
    public var status: HTTPResponse.Status
    /// The header fields.
    public var headerFields: HTTPFields
    /// The body.
    public var body: Data
    /// The HTTP version the response reports.
    public var httpVersion: HTTPVersion
    /// How long to wait before answering; `.zero` answers at once.
    public var delay: Duration
    /// The failure to report instead of a response, if any.
    public var failure: RequestError?

    /// A response.
    ///
    /// - Parameters:
    ///   - status: The status; `200 OK` by default.
    ///   - headerFields: The header fields.
    ///   - body: The body.
    ///   - httpVersion: The HTTP version reported; HTTP/1.1 by default.
    ///   - delay: How long to wait before answering.
    public init(
        status: HTTPResponse.Status = .ok, headerFields: HTTPFields = [:], body: Data = Data(),
        httpVersion: HTTPVersion = .http1_1, delay: Duration = .zero
    ) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.httpVersion = httpVersion
        self.delay = delay
        self.failure = nil
    }

    /// A failure instead of a response, as the network would report it: for example
    /// `.failure(RequestError(.connectionLost, "reset by peer"))`. The request's method and URL
    /// are filled in; retry policies see a failure that received no response bytes.
    ///
    /// - Parameters:
    ///   - error: The error to report.
    ///   - delay: How long to wait before failing.
    public static func failure(_ error: RequestError, delay: Duration = .zero) -> StubResponse {
        var response = StubResponse(status: .serviceUnavailable, delay: delay)
        response.failure = error
        return response
    }

    /// A response with a UTF-8 text body and `Content-Type: text/plain; charset=utf-8`.
    ///
    /// - Parameters:
    ///   - text: The body.
    ///   - status: The status; `200 OK` by default.
    public static func text(_ text: String, status: HTTPResponse.Status = .ok) -> StubResponse {
        StubResponse(status: status, headerFields: [.contentType: "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    /// A response with `value` encoded as JSON and `Content-Type: application/json`.
    ///
    /// - Parameters:
    ///   - value: What to encode.
    ///   - status: The status; `200 OK` by default.
    ///   - encoder: The encoder; a plain `JSONEncoder` by default.
    /// - Throws: The encoder's error.
    public static func json(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, encoder: JSONEncoder = JSONEncoder()
    ) throws -> StubResponse {
        StubResponse(status: status, headerFields: [.contentType: "application/json"], body: try encoder.encode(value))
    }

    /// A copy that waits `delay` before answering.
    public func delayed(by delay: Duration) -> StubResponse {
        var copy = self
        copy.delay = delay
        return copy
    }
}
