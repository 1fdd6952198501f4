/// The faults of ``FaultServer``, one path each: `/fault/<rawValue>`, with query parameters
/// that vary it (`key` groups a test's requests in ``FaultServer/record(key:)``).
///
/// Each answers every HTTP/1.1 request, plain or TLS, with exactly the bytes described.
public enum Fault: String, CaseIterable, Sendable {
    /// Reads the request and closes without a byte; `mode=rst` resets instead (`SO_LINGER` 0).
    case closeBeforeResponse = "close-before-response"
    /// A 200 head announcing 1000 bytes (`length=0`: no `Content-Length`, the body ends at the
    /// close), 100 bytes, then the close (`mode=rst`: a reset).
    case closeMidBody = "close-mid-body"
    /// A chunked 200 whose first chunk announces 1000 bytes; 100 of them, then the close
    /// (`mode=rst`: a reset).
    case closeMidChunk = "close-mid-chunk"
    /// A chunked 200 with two complete 100-byte chunks and no last chunk, then the close.
    case truncatedChunked = "truncated-chunked"
    /// A chunked 200 whose chunk size is `zz`, then the close.
    case badChunkSize = "bad-chunk-size"
    /// A 200 head announcing 100 bytes, then nothing, with the connection open.
    case stallAfterHeaders = "stall-after-headers"
    /// A 200 head announcing `bytes` bytes (default 100), then one byte every `interval`
    /// milliseconds (default 1000).
    case drip
    /// 5,000 headers of 1 KB each (about 5 MB), then an empty body.
    case headerFlood = "header-flood"
    /// One header of 200 KB, then an empty body.
    case hugeHeader = "huge-header"
    /// `Content-Length: 5` and `Content-Length: 12`, a 12-byte body, then the close.
    case conflictingContentLength = "conflicting-content-length"
    /// `Content-Length: 99999999999999999999`, 5 bytes, then the close.
    case overflowingContentLength = "overflowing-content-length"
    /// `Content-Length: 5` and `Transfer-Encoding: chunked`, a chunked `hello`, then the close.
    case contentLengthAndChunked = "content-length-and-chunked"
    /// `Content-Length` of 10 GB, 1 KiB of body, then a stall (`mode=close`: the close).
    case hugeContentLength = "huge-content-length"
    /// The status line `HTTP/1.1 OK 200`, then the close.
    case garbageStatusLine = "garbage-status-line"
    /// An HTTP/0.9 answer: body bytes with no status line, then the close.
    case http09 = "http09"
    /// The status line `HTTP/1.1 2000 OK`, then the close.
    case status2000 = "status-2000"
    /// A header value with a bare CR inside (`X-Fault: a\rb`), then the close.
    case bareCRInHeader = "bare-cr-in-header"
    /// A header value with a bare LF inside: `X-Fault: before\nX-Smuggled: after`, then the close.
    case bareLFInHeader = "bare-lf-in-header"
    /// A header value with a NUL inside (`X-Fault: a\0b`), then the close.
    case nulInHeader = "nul-in-header"
    /// A 200 with neither `Content-Length` nor chunking, then 64 KiB chunks until the client closes.
    case endlessBody = "endless-body"
    /// A ``CompressionBomb`` with `Content-Length`: `encoding=gzip|br|zstd` (default gzip).
    case compressionBomb = "compression-bomb"
    /// `hello` gzip-encoded `layers` times (default 6), with `Content-Encoding: gzip, gzip, …`.
    case stackedEncodings = "stacked-encodings"
    /// A `302` to `/fault/ok` whose body is the gzip bomb.
    case bombInRedirect = "bomb-in-redirect"
    /// Answers the first request of a connection (`200`, `first`, kept alive); reads any later
    /// request on that connection in full and closes without answering.
    case closedWhenReused = "closed-when-reused"
    /// A 200 with no `Content-Length`, 100 bytes, then FIN without TLS's close_notify; with
    /// `framing=length` or `framing=chunked`, the 100 bytes framed whole before that close.
    case uncleanTLSClose = "unclean-tls-close"
    /// A plain `200` with `ok`, kept alive: the target of ``bombInRedirect`` and a control.
    case ok

    /// `/fault/<rawValue>`.
    public var path: String { "/fault/" + rawValue }
}
