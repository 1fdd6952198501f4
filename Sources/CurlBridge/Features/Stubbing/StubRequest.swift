#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// A request as a stubbed transport received it (see ``Transport/init(configuration:stub:)``):
/// what would have gone on the wire, after the request was built, resolved against the base URL,
/// adapted by interceptors and given the configuration's default headers.
///
/// Headers that libcurl itself adds on the wire (`Host`, `User-Agent`, `Accept-Encoding`,
/// `Content-Length`, a multipart boundary's `Content-Type`) are not among ``headerFields``.
public struct StubRequest: Sendable {
    /// The method.
    public var method: HTTPRequest.Method
    /// The absolute URL, query included.
    public var url: String
    /// The header fields the request sends, in order.
    public var headerFields: HTTPFields
    /// The body: its bytes, read whole from memory, a file or a stream; empty when there is none
    /// or when it is a multipart form.
    public var body: Data
    /// The multipart form sent as the body, if the body is one (its parts, unencoded).
    public var multipartForm: MultipartForm?

    /// Creates a received request.
    public init(
        method: HTTPRequest.Method, url: String, headerFields: HTTPFields = [:], body: Data = Data(),
        multipartForm: MultipartForm? = nil
    ) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
        self.multipartForm = multipartForm
    }

    /// The URL's path, percent-encoded as sent (`/users/42`); empty when the URL has none.
    public var path: String {
        URLComponents(string: url)?.percentEncodedPath ?? ""
    }

    /// The decoded values of the query parameter `name`, in order; empty when it is absent.
    public func queryValues(_ name: String) -> [String] {
        let items = URLComponents(string: url)?.queryItems ?? []
        return items.filter { $0.name == name }.map { $0.value ?? "" }
    }
}
