#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// A completed download: the file is at ``fileURL``, complete, flushed to disk and verified.
public struct DownloadResponse: Sendable, Equatable {
    /// The status of the response whose body is the file (`200`, or `206` when resumed).
    public var status: HTTPResponse.Status
    /// That response's header fields.
    public var headerFields: HTTPFields
    /// Where the file is: the destination the download was given.
    public var fileURL: URL
    /// The file's size in bytes, including bytes kept from an earlier attempt.
    public var bytesWritten: Int64
    /// How many of those bytes came from the partial file of an earlier attempt (0 when the
    /// download started from scratch or the server sent the whole resource again).
    public var resumedFromOffset: Int64
    /// The file's SHA-256 in lowercase hex, computed while writing (bytes kept from an earlier
    /// attempt included) when ``DownloadOptions/computesSHA256`` or
    /// ``DownloadOptions/expectedSHA256`` asked for it; `nil` otherwise.
    public var sha256: String?
    /// The URL the response came from: after redirects, the last one.
    public var url: String
    /// The redirects followed to get here, first to last; empty when there were none.
    public var redirects: [RedirectHop]
    /// The HTTP version the response used.
    public var httpVersion: HTTPVersion
    /// Timings, sizes and connection facts of the last attempt, from curl.
    public var metrics: TransferMetrics
    /// Every attempt made to get this download, first to last (one, unless it was retried).
    public var attempts: [AttemptRecord]

    /// Creates a download response.
    public init(
        status: HTTPResponse.Status, headerFields: HTTPFields, fileURL: URL, bytesWritten: Int64,
        resumedFromOffset: Int64, sha256: String?, url: String, httpVersion: HTTPVersion, metrics: TransferMetrics,
        redirects: [RedirectHop] = [], attempts: [AttemptRecord] = []
    ) {
        self.redirects = redirects
        self.attempts = attempts
        self.status = status
        self.headerFields = headerFields
        self.fileURL = fileURL
        self.bytesWritten = bytesWritten
        self.resumedFromOffset = resumedFromOffset
        self.sha256 = sha256
        self.url = url
        self.httpVersion = httpVersion
        self.metrics = metrics
    }
}
