import Foundation

/// What it takes to resume a download that failed or was cancelled: where its bytes are, how many,
/// and the validator that proves the server still has the same resource.
///
/// `Codable`, so it can be saved and a later process can resume (the Linux analogue of
/// NSURLSession's resume data and background sessions). Resuming sends `Range: bytes=N-` with
/// `If-Range: <validator>`: a `206` continues the partial file, a `200` (the resource changed, or
/// the server ignores ranges) starts it again from zero.
public struct ResumeData: Codable, Sendable, Hashable {
    /// How the server identifies the version of the resource.
    public enum Validator: Codable, Sendable, Hashable {
        /// A strong entity tag, quotes included, e.g. `"\"abc\""`.
        case entityTag(String)
        /// A `Last-Modified` date, as the server sent it.
        case lastModified(String)

        /// The value sent as `If-Range`.
        public var headerValue: String {
            switch self {
            case .entityTag(let tag): tag
            case .lastModified(let date): date
            }
        }
    }

    /// The URL the partial bytes came from.
    public var url: String
    /// The validator of the resource those bytes belong to.
    public var validator: Validator
    /// How many bytes the partial file holds.
    public var bytesOnDisk: Int64
    /// The partial file, in the destination's directory.
    public var partialFileURL: URL
    /// The download's destination.
    public var destination: URL
    /// The resource's full length, when the server announced it.
    public var expectedLength: Int64?

    /// Creates resume data.
    public init(
        url: String, validator: Validator, bytesOnDisk: Int64, partialFileURL: URL, destination: URL, expectedLength: Int64?
    ) {
        self.url = url
        self.validator = validator
        self.bytesOnDisk = bytesOnDisk
        self.partialFileURL = partialFileURL
        self.destination = destination
        self.expectedLength = expectedLength
    }

    /// Deletes the partial file: for resume data that will not be used.
    public func discard() {
        try? FileManager.default.removeItem(at: partialFileURL)
    }
}
