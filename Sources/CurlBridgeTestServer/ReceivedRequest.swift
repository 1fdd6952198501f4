import NIOCore
import NIOHTTP1

/// One complete request as the routes see it: head, whole body, and the connection it came on.
struct ReceivedRequest {
    /// The request line and headers (for HTTP/2 as translated by `HTTP2FramePayloadToHTTP1ServerCodec`).
    let head: HTTPRequestHead
    /// All body bytes received; empty for `/upload-sink`, whose ``UploadSink`` keeps none.
    let body: ByteBuffer
    /// The server-wide number of the carrying TCP connection.
    let connectionID: Int
    /// The client's IP address as the server sees it; `nil` over a Unix domain socket.
    var clientAddress: String? = nil

    /// The request target up to (not including) the first `?`.
    var path: String {
        Self.path(ofTarget: self.head.uri)
    }

    /// The part of a request target up to (not including) the first `?`.
    static func path(ofTarget target: String) -> String {
        String(target.prefix { $0 != "?" })
    }

    /// The raw text after the first `?`, or `nil` if the target has none.
    var query: String? {
        self.head.uri.firstIndex(of: "?").map { String(self.head.uri[self.head.uri.index(after: $0)...]) }
    }

    /// The decoded query parameters, in order.
    var queryParameters: QueryParameters {
        QueryParameters(rawQuery: self.query ?? "")
    }

    /// `"2"` for HTTP/2, otherwise `"major.minor"`, e.g. `"1.1"`.
    var httpVersion: String {
        self.head.version.major == 2 ? "2" : "\(self.head.version.major).\(self.head.version.minor)"
    }

    /// Whether the connection stays open after the response: always for HTTP/2, per the
    /// `Connection` header and version defaults for HTTP/1.
    var keepsConnectionAlive: Bool {
        self.head.version.major >= 2 || self.head.isKeepAlive
    }
}
