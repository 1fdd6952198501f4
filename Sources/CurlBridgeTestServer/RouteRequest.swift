import Foundation

/// A request as a route registered with ``TestServer/route(_:method:respond:)`` sees it.
public struct RouteRequest: Sendable {
    /// The method, e.g. `"GET"`.
    public let method: String
    /// The request target up to (not including) the first `?`, e.g. `"/users/42"`.
    public let path: String
    /// The decoded query parameters, in order, as name–value pairs.
    public let query: [(name: String, value: String)]
    /// The header fields, in received order, names as received.
    public let headers: [(name: String, value: String)]
    /// The whole body.
    public let body: Data
    /// `"2"` for HTTP/2, otherwise `"major.minor"`, e.g. `"1.1"`.
    public let httpVersion: String

    /// The value of the first header named `name` (compared case-insensitively), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The first value of the query parameter `name`, if any.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// What a registered route answers with (see ``TestServer/route(_:method:respond:)``).
public struct RouteResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields; `Content-Length` is added when absent.
    public var headers: [(name: String, value: String)]
    /// The body (not sent for `HEAD` and body-less statuses).
    public var body: Data
    /// Whether the server closes the connection instead of answering (see ``hangUp``).
    var closesWithoutAnswer = false

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status code; `200` by default.
    ///   - headers: The header fields.
    ///   - body: The body.
    public init(status: Int = 200, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// No response: the connection is closed without a byte of answer (on HTTP/2, the stream is
    /// reset), as by a server that crashed or dropped the request.
    public static let hangUp: RouteResponse = {
        var response = RouteResponse()
        response.closesWithoutAnswer = true
        return response
    }()

    /// A `text/plain` UTF-8 response.
    public static func text(_ text: String, status: Int = 200) -> RouteResponse {
        RouteResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8))
    }

    /// An `application/json` response of `value`, encoded with sorted keys.
    ///
    /// - Throws: The encoder's error.
    public static func json(_ value: some Encodable, status: Int = 200) throws -> RouteResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return RouteResponse(status: status, headers: [("Content-Type", "application/json")], body: try encoder.encode(value))
    }
}
