@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// The core is compiled against FoundationEssentials (DESIGN.md, "FoundationEssentials"): what it
/// wrote itself in place of full Foundation's calls gives what those calls gave. This file imports
/// full Foundation, so each expectation compares with the call the core used before.
struct FoundationEssentialsParityTests {
    @Test(arguments: ["", " ", "\t x \t", " a b ", "\u{A0}x\u{3000}", "\u{2003}\u{200A}y z\u{202F}", "\n x \n", " \r", "x\u{301} ", "\u{200B}x"])
    func whitespaceIsTrimmedAsCharacterSetWhitespacesTrimsIt(text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        #expect(Substring(text).trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
    }

    /// The legacy charsets FoundationEssentials does not decode, each with bytes beyond ASCII.
    static let legacyCharsets: [(name: String, encoding: String.Encoding, bytes: [UInt8])] = [
        ("iso-8859-2", .isoLatin2, [0x63, 0xB9, 0xE8]),
        ("windows-1250", .windowsCP1250, [0x8A, 0x9A, 0xE8]),
        ("windows-1251", .windowsCP1251, [0xCF, 0xF0, 0xE8]),
        ("windows-1252", .windowsCP1252, [0x80, 0x93, 0x63, 0xE9, 0x94]),
        ("windows-1253", .windowsCP1253, [0xC1, 0xE2, 0xE3]),
        ("windows-1254", .windowsCP1254, [0xD0, 0xFD, 0xFE]),
        ("shift_jis", .shiftJIS, [0x82, 0xA0, 0x93, 0xFA, 0x96, 0x7B, 0xB1]),
        ("iso-2022-jp", .iso2022JP, [0x1B, 0x24, 0x42, 0x24, 0x22, 0x46, 0x7C, 0x1B, 0x28, 0x42, 0x61]),
    ]

    @Test(arguments: legacyCharsets.indices)
    func legacyCharsetsDecodeAsFoundationDecodedThem(index: Int) throws {
        let (name, encoding, bytes) = Self.legacyCharsets[index]
        let expected = try #require(String(data: Data(bytes), encoding: encoding))
        #expect(try response(Data(bytes), contentType: "text/plain; charset=\(name)").text() == expected)
    }

    /// Full Foundation on Linux decoded no EUC-JP at all (every body failed); `iconv` does.
    @Test func eucJPDecodes() throws {
        let bytes = Data([0xA4, 0xA2, 0xC6, 0xFC, 0xCB, 0xDC])
        #expect(try response(bytes, contentType: "text/plain; charset=EUC-JP").text() == "\u{3042}\u{65E5}\u{672C}")
    }

    @Test func bytesInvalidInALegacyCharsetFailToDecode() {
        // 0x82 opens a two-byte Shift_JIS character that never comes.
        let outcome = Result { () throws(RequestError) in try response(Data([0x61, 0x82]), contentType: "text/plain; charset=shift_jis").text() }
        #expect(outcome.failure?.code == .decodingFailed)
    }

    @Test func quotedCharsetNamesAreUnquotedAsBefore() {
        #expect(Charset.name(inContentType: #"text/plain; charset="ISO-8859-2""#) == "iso-8859-2")
        #expect(Charset.name(inContentType: #"text/plain;  charset = ""utf-8"" "#) == "utf-8")
    }

    @Test func aFileErrorSaysWhatTheSystemSaid() {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/file")
        let outcome = Result { () throws(RequestError) in try CertificateBundle.read(missing) }
        #expect(outcome.failure?.code == .fileIO)
        #expect(outcome.failure?.message.hasSuffix(": No such file or directory") == true)
    }

    @Test func retryAfterReadsEachHTTPDateForm() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        for form in ["Sun, 06 Nov 1994 08:49:47 GMT", "Sunday, 06-Nov-94 08:49:47 GMT", "Sun Nov  6 08:49:47 1994"] {
            #expect(RetryAfter.delay(from: " \(form) ", now: now) == .seconds(10))
        }
        #expect(RetryAfter.delay(from: "tomorrow", now: now) == nil)
    }

    /// A response with `body` and `Content-Type: contentType`, as the transport would build it.
    private func response(_ body: Data, contentType: String) -> Response {
        let metrics = TransferMetrics(
            nameLookup: .zero, connect: .zero, tlsHandshake: .zero, preTransfer: .zero, firstByte: .zero, total: .zero,
            bytesSent: 0, bytesReceived: Int64(body.count), headerBytes: 0, reusedConnection: false,
            localPort: 0, remoteAddress: "", remotePort: 0)
        return Response(status: .ok, headerFields: [.contentType: contentType], body: body, url: "http://example.com/", httpVersion: .http1_1, metrics: metrics)
    }
}
