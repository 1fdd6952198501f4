import NIOCore
import NIOHTTP1
import NIOHTTPCompression

/// The `/gzip` route: a few KB of JSON, always gzip-compressed (whatever the client's
/// `Accept-Encoding`, like httpbin), with `X-Uncompressed-Length`.
///
/// Compression is done by NIO's `HTTPResponseCompressor`, which sits in every request pipeline
/// but only compresses responses marked by this route, and only if the request accepted gzip;
/// ``GzipAcceptEncodingOverride`` makes every `/gzip` request accept it.
enum GzipRoute {
    /// Internal header telling the compressor to compress; removed before the response is sent.
    static let compressionMarker = "x-curlbridge-test-server-compress"

    /// Whether `path` is this route's (`/gzip`, tolerating extra slashes like the router does).
    static func matches(path: String) -> Bool {
        path.split(separator: "/") == ["gzip"]
    }

    /// The uncompressed JSON: `{"gzipped":true,"filler":"…"}` with a compressible filler.
    static let uncompressedBody =
        #"{"gzipped":true,"filler":""# + String(repeating: "CurlBridge test filler. ", count: 160) + #""}"#

    /// The route's response; `compressed` is `false` for `HEAD`, whose empty body is sent as is.
    static func response(compressed: Bool) -> CompleteResponse {
        var response = CompleteResponse(status: .ok, contentType: "application/json", body: uncompressedBody)
        response.headers.add(name: "X-Uncompressed-Length", value: String(uncompressedBody.utf8.count))
        if compressed {
            response.headers.add(name: compressionMarker, value: "gzip")
        }
        return response
    }

    /// A compressor for one request pipeline that compresses exactly the marked responses.
    static func makeCompressor() -> HTTPResponseCompressor {
        HTTPResponseCompressor { head, _ in
            guard head.headers.contains(name: compressionMarker) else { return .doNotCompress }
            head.headers.remove(name: compressionMarker)
            return .compressIfPossible
        }
    }
}
