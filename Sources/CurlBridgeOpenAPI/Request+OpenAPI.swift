import CurlBridge
import Foundation
import HTTPTypes
import OpenAPIRuntime

extension Request {
    /// The CurlBridge request for the runtime's `request` and `body`, sent to `baseURL`.
    ///
    /// The body streams from the runtime's sequence. Its length, when known, goes to curl — which
    /// then sends `Content-Length` itself — rather than as the runtime's own `Content-Length`
    /// field; with neither, the body is sent chunked over HTTP/1.1.
    init(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL) {
        self.init(method: request.method, url: Self.url(base: baseURL, pathAndQuery: request.path ?? ""))
        var fields = request.headerFields
        if let body {
            let declaredLength = fields[.contentLength].flatMap { Int64($0) }
            fields[.contentLength] = nil
            let length: Int64? = switch body.length {
            case .known(let length): length
            case .unknown: declaredLength
            }
            // No content type of the body's own: the runtime's `Content-Type` field, if any, is sent.
            self = self.body(streaming: body.map { Data($0) }, length: length, contentType: nil)
        }
        headerFields = fields
    }

    /// `pathAndQuery` (the runtime's request path, from `/`) appended to `base`'s path, with one
    /// `/` between them whether or not `base` ends with one; `base`'s own query and fragment,
    /// which OpenAPI server URLs do not have, are dropped.
    static func url(base: URL, pathAndQuery: String) -> String {
        var prefix = base.absoluteString
        // In a parsed URL, the first `?` or `#` starts the query or the fragment.
        if let end = prefix.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            prefix = String(prefix[..<end])
        }
        guard !pathAndQuery.isEmpty else { return prefix }
        while prefix.hasSuffix("/") { prefix.removeLast() }
        return pathAndQuery.hasPrefix("/") ? prefix + pathAndQuery : prefix + "/" + pathAndQuery
    }
}
