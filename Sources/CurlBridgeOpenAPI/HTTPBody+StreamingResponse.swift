import CurlBridge
import HTTPTypes
import OpenAPIRuntime

extension HTTPBody {
    /// The runtime's body for `response`, streaming from its `ResponseBody`, iterable once; `nil`
    /// for a response that has none (to `HEAD`, or `204` and `304`), whose transfer is first
    /// read to its end.
    ///
    /// - Parameter decodesContentEncoding: Whether curl decodes the body, so that a
    ///   `Content-Length` of an encoded body does not count the bytes the reader gets.
    /// - Throws: The transfer's `RequestError` while a bodiless response is read to its end.
    static func responseBody(
        of response: StreamingResponse, to method: HTTPRequest.Method, decodesContentEncoding: Bool
    ) async throws(RequestError) -> HTTPBody? {
        guard hasBody(status: response.status, method: method) else {
            for try await _ in response.body {}
            return nil
        }
        return HTTPBody(
            response.body, length: length(of: response.headerFields, decodesContentEncoding: decodesContentEncoding),
            iterationBehavior: .single)
    }

    /// Whether a response with `status` to `method` has a body (RFC 9110, 6.4.1).
    static func hasBody(status: HTTPResponse.Status, method: HTTPRequest.Method) -> Bool {
        method != .head && status != .noContent && status != .notModified
    }

    /// The body's length from `Content-Length`, unless the body is decoded (then the field counts
    /// the encoded bytes) or the field is missing or malformed.
    static func length(of fields: HTTPFields, decodesContentEncoding: Bool) -> Length {
        if decodesContentEncoding, let encoding = fields[.contentEncoding], encoding.lowercased() != "identity" {
            return .unknown
        }
        guard let length = fields[.contentLength].flatMap({ Int64($0) }), length >= 0 else { return .unknown }
        return .known(length)
    }
}
