@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// Which validator a download may resume under, and which `206` continues its file: pure
/// judgements of header fields (RFC 9110 §8.8.2.2, §13.1.5, §14.4), with no sockets.
@Suite("Resume validators and the 206 check")
struct ResumeValidatorTests {
    private static let modified = "Mon, 01 Jan 2024 00:00:00 GMT"

    private func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    @Test("A strong ETag; with no ETag at all, a date at least 60 s before Date; nothing else", arguments: [
        ([("ETag", #""v1""#), ("Last-Modified", modified)], ResumeData.Validator.entityTag(#""v1""#)),
        ([("ETag", #"W/"v1""#), ("Last-Modified", modified), ("Date", "Tue, 02 Jan 2024 00:00:00 GMT")], nil),
        ([("ETag", "v1-unquoted"), ("Last-Modified", modified), ("Date", "Tue, 02 Jan 2024 00:00:00 GMT")], nil),
        ([("ETag", #""a"b""#)], nil),
        ([("Last-Modified", modified), ("Date", "Mon, 01 Jan 2024 00:01:00 GMT")], .lastModified(modified)),
        ([("Last-Modified", modified), ("Date", "Mon, 01 Jan 2024 00:00:59 GMT")], nil),
        ([("Last-Modified", modified)], nil),
        ([("Last-Modified", "yesterday"), ("Date", "Tue, 02 Jan 2024 00:00:00 GMT")], nil),
        ([], nil),
    ] as [([(String, String)], ResumeData.Validator?)])
    func strongValidators(pairs: [(String, String)], validator: ResumeData.Validator?) {
        #expect(ResumeData.Validator.strong(in: fields(pairs)) == validator)
    }

    @Test("Only a strong tag or a date may go out as If-Range")
    func usableAsIfRange() {
        #expect(ResumeData.Validator.entityTag(#""v1""#).isUsableAsIfRange)
        #expect(ResumeData.Validator.lastModified(Self.modified).isUsableAsIfRange)
        #expect(!ResumeData.Validator.entityTag(#"W/"v1""#).isUsableAsIfRange)
        #expect(!ResumeData.Validator.entityTag("\"v1\"\r\nX-Injected: 1").isUsableAsIfRange)
        #expect(!ResumeData.Validator.entityTag("").isUsableAsIfRange)
        #expect(!ResumeData.Validator.lastModified("not a date").isUsableAsIfRange)
    }

    private let resumed = PartialContentCheck(offset: 300, validator: .entityTag(#""v1""#), completeLength: 1000)

    @Test("A 206 continues the file only as the rest of the same representation", arguments: [
        ([("Content-Range", "bytes 300-999/1000"), ("ETag", #""v1""#)], PartialContentCheck.Verdict.continues(completeLength: 1000)),
        ([("Content-Range", "bytes 300-999/1000"), ("ETag", #""v2""#)], nil),
        ([("Content-Range", "bytes 300-999/1000")], nil),
        ([("Content-Range", "bytes 300-999/1000"), ("ETag", #"W/"v1""#)], nil),
        ([("Content-Range", "bytes 300-1999/2000"), ("ETag", #""v1""#)], nil),
        ([("Content-Range", "bytes 300-999/*"), ("ETag", #""v1""#)], nil),
        ([("Content-Range", "bytes 0-999/1000"), ("ETag", #""v1""#)], nil),
        ([("Content-Range", "bytes 300-500/1000"), ("ETag", #""v1""#)], nil),
        ([("ETag", #""v1""#)], nil),
    ] as [([(String, String)], PartialContentCheck.Verdict?)])
    func resumedChecks(pairs: [(String, String)], verdict: PartialContentCheck.Verdict?) {
        let judged = resumed.judge(fields(pairs))
        if let verdict {
            #expect(judged == verdict)
        } else if case .continues = judged {
            Issue.record("\(pairs) continued the file")
        }
    }

    @Test("A Last-Modified validator: the 206 repeats the same date")
    func dateValidator() {
        let check = PartialContentCheck(offset: 10, validator: .lastModified(Self.modified), completeLength: 20)
        #expect(check.judge(fields([("Content-Range", "bytes 10-19/20"), ("Last-Modified", Self.modified)])) == .continues(completeLength: 20))
        #expect(check.judge(fields([("Content-Range", "bytes 10-19/20"), ("Last-Modified", "Tue, 02 Jan 2024 00:00:00 GMT")])) != .continues(completeLength: 20))
    }

    @Test("A download that did not resume takes a 206 from byte 0 to the end, any validator or none")
    func freshDownload() {
        let check = PartialContentCheck(offset: 0, validator: nil, completeLength: nil)
        #expect(check.judge(fields([("Content-Range", "bytes 0-9/10")])) == .continues(completeLength: 10))
        #expect(check.judge(fields([("Content-Range", "bytes 0-9/*")])) == .continues(completeLength: nil))
        #expect(check.judge(fields([("Content-Range", "bytes 5-9/10")])) != .continues(completeLength: 10))
    }

    @Test("Byte counts a server announces add up without a trap")
    func saturatingSums() {
        #expect(Int64.max.addingSaturated(1) == .max)
        #expect(Int64.min.addingSaturated(-1) == .min)
        #expect(Int64(40).addingSaturated(2) == 42)
    }
}
