#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// Where a download's body is, as a value: its phase (``Phase``), the byte counts of the partial
/// file, and what the response said about resuming. ``DownloadOperation`` keeps it under its lock
/// beside the file; each event's method says what to do with the file — write, empty it first,
/// flush, or nothing — and the operation does it. The value does no I/O.
struct DownloadBodyState {
    /// What the body does with the bytes of the current response.
    enum Phase: Equatable {
        /// No final response head yet.
        case awaitingHead
        /// Writing the body into the partial file.
        case writing
        /// An unacceptable status: keep the start of the error body for the error, write nothing.
        case collectingErrorBody(Data)
    }

    /// What a head asks of the file.
    enum HeadStep: Equatable {
        /// Nothing: the body continues (or, for an error body, is kept in memory).
        case proceed
        /// Empty the partial file of an earlier attempt's bytes (then report ``startedOver()``):
        /// the body is the whole resource.
        case startOver
        /// Refuse the response with this error — after emptying the partial file as above when
        /// `startingOver`: the partial bytes belong to a version the server no longer serves
        /// whole, so the next attempt starts from zero.
        case fail(RequestError, startingOver: Bool)
    }

    /// What a piece of the body asks of the file.
    enum PieceStep {
        /// Write it (then report ``pieceWritten(_:)`` or ``writeFailed(_:)``).
        case write
        /// Nothing: it was kept for an error response's body, or that body is full.
        case kept
        /// Refuse it, failing the download.
        case fail(RequestError)
    }

    /// The most of an error body kept for the error's response.
    static let errorBodyLimit = 64 << 10

    /// What the body does with the current response's bytes.
    private(set) var phase = Phase.awaitingHead
    /// Whether this download continues the partial file of resume data.
    let continuesPartialFile: Bool
    /// Bytes kept from an earlier attempt, before this response's first byte.
    private(set) var resumedFrom: Int64
    /// Bytes in the partial file now.
    private(set) var written: Int64
    /// Bytes in the partial file at its last flush for a checkpoint.
    private(set) var flushed: Int64
    /// What the partial bytes' version is recognised by, when it can be resumed.
    private(set) var validator: ResumeData.Validator?
    /// Whether the body has a content encoding (its length then counts encoded bytes).
    private(set) var isContentEncoded = false
    /// The resource's complete length, when known.
    private(set) var expectedLength: Int64?
    /// A write failed because the disk (or the file size limit) is full.
    private(set) var diskFilled = false

    /// A new partial file, or the one of resume data holding `resumedFrom` bytes of the version
    /// `validator` names.
    init(resumedFrom: Int64 = 0, continuesPartialFile: Bool = false, validator: ResumeData.Validator? = nil, expectedLength: Int64? = nil) {
        self.resumedFrom = resumedFrom
        self.continuesPartialFile = continuesPartialFile
        written = resumedFrom
        flushed = resumedFrom
        self.validator = validator
        self.expectedLength = expectedLength
    }

    // MARK: Events

    /// The final head arrived; `acceptable`: its status is one the download accepts.
    mutating func headArrived(_ head: ResponseHead, acceptable: Bool) -> HeadStep {
        guard acceptable else {
            phase = .collectingErrorBody(Data())
            return .proceed
        }
        let encoding = head.headerFields[.contentEncoding]?.lowercased()
        isContentEncoded = encoding != nil && encoding != "identity"
        guard head.status.code == 206 else {
            // The whole resource: the resource changed, or the server ignores ranges.
            validator = ResumeData.Validator.strong(in: head.headerFields)
            expectedLength = head.headerFields[.contentLength].flatMap { Int64($0) }
            phase = .writing
            return resumedFrom > 0 ? .startOver : .proceed
        }
        let check = PartialContentCheck(
            offset: resumedFrom, validator: continuesPartialFile ? validator : nil,
            completeLength: continuesPartialFile ? expectedLength : nil)
        switch check.judge(head.headerFields) {
        case .continues(let completeLength):
            expectedLength = completeLength ?? expectedLength
            if !continuesPartialFile { validator = ResumeData.Validator.strong(in: head.headerFields) }
            phase = .writing
            return .proceed
        case .refused(let reason):
            validator = nil
            return .fail(RequestError(.protocolError, reason), startingOver: resumedFrom > 0)
        }
    }

    /// The partial file was emptied: the body is written from byte 0.
    mutating func startedOver() {
        resumedFrom = 0
        written = 0
        flushed = 0
    }

    /// A piece of `bytes` arrived; `maximum`: the download's size limit.
    mutating func pieceArrived(_ bytes: UnsafeRawBufferPointer, maximum: Int64?) -> PieceStep {
        guard case .collectingErrorBody(var body) = phase else {
            if let maximum, written + Int64(bytes.count) > maximum {
                return .fail(RequestError(.bodyTooLarge, "the download exceeds its limit of \(maximum) bytes"))
            }
            return .write
        }
        let room = Self.errorBodyLimit - body.count
        if room > 0 {
            body.append(contentsOf: bytes.prefix(room))
            phase = .collectingErrorBody(body)
        }
        return .kept
    }

    /// `count` bytes were written; returns whether a checkpoint of `interval` bytes is due (the
    /// file may be resumed, and that many were written since the last flush).
    mutating func pieceWritten(_ count: Int, checkpointInterval interval: Int64?) -> Bool {
        written += Int64(count)
        guard let interval, written - flushed >= interval else { return false }
        return isResumable
    }

    /// A write failed with `error`.
    mutating func writeFailed(_ error: RequestError) {
        diskFilled = error.isDiskFull
    }

    /// The partial file was flushed: every byte written is on disk.
    mutating func flushedAll() {
        flushed = written
    }

    // MARK: Readings

    /// Whether the partial bytes could be resumed: a validator names their version, and they are
    /// the resource's own bytes (no content encoding).
    var isResumable: Bool { validator != nil && !isContentEncoded }

    /// Whether a failure with `code` leaves partial bytes worth resuming: not one about the file
    /// itself, except a full disk (ENOSPC, EFBIG), which leaves the bytes written so far valid.
    func failureKeepsBytes(_ code: RequestError.Code) -> Bool {
        ![.fileIO, .integrityMismatch, .bodyTooLarge, .destinationExists].contains(code) || (code == .fileIO && diskFilled)
    }
}
