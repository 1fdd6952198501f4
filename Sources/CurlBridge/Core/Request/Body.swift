#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Request {
    /// A request body: bytes, a file, a stream or a multipart form, with the content type to send.
    public struct Body: Sendable, Hashable {
        /// What is sent.
        enum Content: Sendable, Hashable {
            case bytes(Data)
            case multipart(MultipartForm)
            /// A file read by curl's read callback while sending, never loaded whole.
            case file(URL)
            /// A one-shot stream made while sending.
            case stream(BodyStream)

            /// Whether it can be sent again from its start: bytes, files and forms can; streams cannot.
            var isRewindable: Bool {
                if case .stream = self { return false }
                return true
            }
        }

        let content: Content
        /// The `Content-Type` sent when the request sets none itself; `nil` sends none (for a
        /// multipart form, curl sends its own with the boundary).
        public var contentType: String?

        /// The bytes sent, or `nil` for a multipart form.
        public var data: Data? {
            if case .bytes(let data) = content { return data }
            return nil
        }

        /// The multipart form sent, if the body is one.
        public var multipartForm: MultipartForm? {
            if case .multipart(let form) = content { return form }
            return nil
        }

        /// The file sent, if the body is one.
        public var fileURL: URL? {
            if case .file(let url) = content { return url }
            return nil
        }

        /// Whether the body can be sent again from its start (curl does on a retried connection):
        /// bytes, files and forms can; streams cannot.
        public var isRewindable: Bool { content.isRewindable }

        /// Creates a body of bytes.
        public init(data: Data, contentType: String?) {
            self.content = .bytes(data)
            self.contentType = contentType
        }

        /// Creates a body of any kind.
        init(content: Content, contentType: String?) {
            self.content = content
            self.contentType = contentType
        }

        /// Creates a multipart body.
        public init(multipart form: MultipartForm) {
            self.content = .multipart(form)
            self.contentType = nil
        }
    }
}

extension Request {
    /// This request with raw bytes as its body.
    ///
    /// - Parameters:
    ///   - data: The bytes.
    ///   - contentType: Sent as `Content-Type` unless the request sets one; `application/octet-stream` by default.
    public func body(_ data: Data, contentType: String? = "application/octet-stream") -> Request {
        var copy = self
        copy.body = Body(data: data, contentType: contentType)
        return copy
    }

    /// This request with text as its body, encoded as UTF-8.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - contentType: `text/plain; charset=utf-8` by default.
    public func body(_ text: String, contentType: String? = "text/plain; charset=utf-8") -> Request {
        body(Data(text.utf8), contentType: contentType)
    }

    /// This request with a JSON body encoded from `value`, and `Content-Type: application/json`.
    ///
    /// Encoding happens now; a failure is reported at send time as
    /// ``RequestError/Code/encodingFailed`` with the `EncodingError` as ``RequestError/underlying``.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - encoder: The encoder to use; a default `JSONEncoder` unless given.
    public func json<Value: Encodable>(_ value: Value, encoder: JSONEncoder = JSONEncoder()) -> Request {
        do {
            return body(try encoder.encode(value), contentType: "application/json")
        } catch {
            return failing(.encodingFailed, "the JSON body could not be encoded: \(error)", underlying: error)
        }
    }

    /// This request with a URL-encoded form body (`application/x-www-form-urlencoded`), names and
    /// values percent-encoded per RFC 3986 with spaces as `+`, as HTML forms send them.
    public func form(_ fields: [URLQueryItem]) -> Request {
        let encoded = fields.map { item in
            let name = PercentEncoding.formEncoded(item.name)
            guard let value = item.value else { return name }
            return name + "=" + PercentEncoding.formEncoded(value)
        }.joined(separator: "&")
        return body(Data(encoded.utf8), contentType: "application/x-www-form-urlencoded")
    }

    /// This request with a URL-encoded form body from name/value pairs, in order.
    public func form(_ fields: KeyValuePairs<String, String>) -> Request {
        form(fields.map { URLQueryItem(name: $0.key, value: $0.value) })
    }
}
