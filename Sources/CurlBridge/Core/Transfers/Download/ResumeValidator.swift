#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

extension ResumeData.Validator {
    /// How much older than the response's `Date` a `Last-Modified` date must be to count as a
    /// strong validator (RFC 9110 §8.8.2.2): a resource changed twice within the same second has
    /// two versions under one date, so a date just taken could name either.
    static let lastModifiedMargin: TimeInterval = 60

    /// The validator of a response that a later `If-Range` may carry (RFC 9110 §13.1.5), or `nil`:
    /// its strong entity tag; with no entity tag at all, its `Last-Modified` date when that is a
    /// strong validator — at least ``lastModifiedMargin`` before the response's `Date`. A weak
    /// tag (`W/"…"`) never qualifies, and neither does a date beside one, nor a date without a
    /// `Date` to judge it by.
    static func strong(in fields: HTTPFields) -> Self? {
        if let tag = fields[.eTag] {
            return isStrongEntityTag(tag) ? .entityTag(tag) : nil
        }
        guard let modifiedText = fields[.lastModified], isSafeHeaderValue(modifiedText),
              let modified = HTTPDate.parse(modifiedText), let date = fields[.date].flatMap(HTTPDate.parse),
              date.timeIntervalSince(modified) >= lastModifiedMargin
        else { return nil }
        return .lastModified(modifiedText)
    }

    /// Whether this validator may go out as `If-Range`: a strong entity tag (`"…"`, no `W/`) or
    /// an HTTP date, as a header value can carry it. Resume data made by hand or decoded from a
    /// file can hold anything else; a download refuses it rather than send it.
    var isUsableAsIfRange: Bool {
        switch self {
        case .entityTag(let tag): Self.isStrongEntityTag(tag)
        case .lastModified(let date): Self.isSafeHeaderValue(date) && HTTPDate.parse(date) != nil
        }
    }

    /// Whether `fields` name the same version of the resource as this validator: the same strong
    /// entity tag, byte for byte, or the same `Last-Modified` date, as a `206` must repeat them.
    func matches(_ fields: HTTPFields) -> Bool {
        switch self {
        case .entityTag(let tag): fields[.eTag] == tag
        case .lastModified(let date): fields[.lastModified] == date
        }
    }

    /// An `opaque-tag` (RFC 9110 §8.8.3): `"`, characters other than `"`, controls and DEL, `"`.
    private static func isStrongEntityTag(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        return bytes.count >= 2 && bytes.first == UInt8(ascii: "\"") && bytes.last == UInt8(ascii: "\"")
            && bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }
    }

    /// Whether `value` can be a header value: no control character but tab, no DEL.
    private static func isSafeHeaderValue(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }
    }
}

/// Whether a `206 Partial Content` continues a download's partial file: a pure judgement of its
/// head against what the file holds.
///
/// A `206` continues the file only when it is the rest of the very representation the partial
/// bytes came from: its `Content-Range` runs from the first missing byte to the last byte of the
/// resource, its complete length is the one expected, and — when the download resumed — it
/// carries the validator the `If-Range` asked for. A server or CDN that ignores `If-Range`, or
/// serves another version under a range, fails this; splicing its bytes would make a file that
/// was never on the server.
struct PartialContentCheck: Equatable {
    /// Bytes in the partial file: the offset the `206` must start at.
    var offset: Int64
    /// The validator of the partial bytes, sent as `If-Range`; `nil` when the download did not
    /// resume (a `206` to a request without `Range`, which a server may send for the whole body).
    var validator: ResumeData.Validator?
    /// The complete length the partial bytes belong to, when the earlier response announced it.
    var completeLength: Int64?

    /// What a check concludes.
    enum Verdict: Equatable {
        /// The `206` continues the file; the resource's complete length, `nil` when the range
        /// says `*`.
        case continues(completeLength: Int64?)
        /// It does not: why.
        case refused(String)
    }

    /// Judges a `206`'s header fields.
    func judge(_ fields: HTTPFields) -> Verdict {
        guard let rangeText = fields[.contentRange], let range = ContentRange(rangeText) else {
            return .refused("206 without a valid Content-Range (\((fields[.contentRange] ?? "none").debugDescription))")
        }
        guard range.first == offset, range.completeLength.map({ range.last == $0 - 1 }) ?? true else {
            return .refused("206 with Content-Range \(rangeText.debugDescription) does not run from byte \(offset) to the end")
        }
        if let completeLength, range.completeLength != completeLength {
            return .refused(
                "206 with Content-Range \(rangeText.debugDescription) is of a resource of another length than the \(completeLength) bytes the partial file belongs to")
        }
        if let validator, !validator.matches(fields) {
            let sent = validator.isEntityTag ? fields[.eTag] : fields[.lastModified]
            return .refused(
                "206 carries \(validator.fieldName) \((sent ?? "none").debugDescription), not the partial file's \(validator.headerValue.debugDescription): the server ignored If-Range and the resource changed")
        }
        return .continues(completeLength: range.completeLength)
    }
}

extension ResumeData.Validator {
    fileprivate var isEntityTag: Bool {
        if case .entityTag = self { true } else { false }
    }

    fileprivate var fieldName: String { isEntityTag ? "ETag" : "Last-Modified" }
}
