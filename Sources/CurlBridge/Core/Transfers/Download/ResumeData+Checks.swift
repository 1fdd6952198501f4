#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ResumeData {
    /// Checks that this resume data can continue a download to `destination` before any file is
    /// touched: resume data is `Codable`, so it may come from a file anyone could have edited.
    /// Resuming and ``finishFromDisk(expectedSHA256:computesSHA256:)`` check it themselves; a
    /// program that loads saved resume data can check it when it loads it.
    ///
    /// - Throws: ``RequestError/Code/fileIO`` when ``partialFileURL`` is not a partial file of
    ///   `destination` (in its directory, named as the library names them) or the byte counts
    ///   contradict each other; ``RequestError/Code/invalidHeader`` when ``validator`` cannot be
    ///   an `If-Range` (a weak entity tag, a value that is not a date).
    public func check(resumingTo destination: URL) throws(RequestError) {
        guard PartialFileName.isPartialFile(partialFileURL, of: destination) else {
            throw RequestError(
                .fileIO,
                "the resume data names \(partialFileURL.path.debugDescription), which is not a partial file of \(destination.path.debugDescription): refused")
        }
        guard bytesOnDisk >= 0, expectedLength.map({ $0 >= bytesOnDisk }) ?? true else {
            throw RequestError(
                .fileIO, "the resume data says \(bytesOnDisk) bytes on disk of \(expectedLength.map(String.init) ?? "?"): refused")
        }
        guard validator.isUsableAsIfRange else {
            throw RequestError(
                .invalidHeader,
                "the resume data's validator \(validator.headerValue.debugDescription) cannot be sent as If-Range (a strong ETag or a date only)")
        }
    }
}
