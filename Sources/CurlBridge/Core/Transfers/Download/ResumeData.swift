#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What it takes to resume a download that failed or was cancelled: where its bytes are, how many,
/// and the validator that proves the server still has the same resource.
///
/// `Codable`, so it can be saved and a later process can resume (the Linux analogue of
/// NSURLSession's resume data and background sessions). Resuming sends `Range: bytes=N-` with
/// `If-Range: <validator>`: a `206` of the same version continues the partial file, a `200` (the
/// resource changed, or the server ignores ranges) starts it again from zero, and a `206` of
/// another version — another validator or complete length, from a server that ignored `If-Range` —
/// fails with ``RequestError/Code/protocolError`` and gives the partial bytes up.
///
/// Resuming checks it first, since a saved copy may have been edited: the partial file must be in
/// the destination's directory, named as the library names partial files, and a regular file of
/// this user's; the validator must be one `If-Range` may carry.
///
/// Saved, it holds the URL without its user info, but with its query: save it where only you can
/// read it when the query is a secret (a signed URL).
public struct ResumeData: Codable, Sendable, Hashable {
    /// How the server identifies the version of the resource.
    public enum Validator: Codable, Sendable, Hashable {
        /// A strong entity tag, quotes included, e.g. `"\"abc\""`.
        case entityTag(String)
        /// A `Last-Modified` date, as the server sent it: used only when the response had no
        /// entity tag and the date was at least 60 seconds before the response's `Date`, so that
        /// it names one version (RFC 9110 §8.8.2.2).
        case lastModified(String)

        /// The value sent as `If-Range`.
        public var headerValue: String {
            switch self {
            case .entityTag(let tag): tag
            case .lastModified(let date): date
            }
        }
    }

    /// The URL the partial bytes came from, without its user info (a download's own resume data).
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

    /// Deletes the partial file: for resume data that will not be used. Only a file named as a
    /// partial file of ``destination``, beside it, is deleted (the name itself, never what a
    /// symbolic link there points to); resume data naming anything else deletes nothing.
    public func discard() {
        guard PartialFileName.isPartialFile(partialFileURL, of: destination) else { return }
        unlink(partialFileURL.path)
    }
}
