@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// ``ResponseHeadRecorder`` writes the lines into the storage of the block it hands out: a block,
/// once handed out, must never see a line recorded after it, however the recorder goes on. (A
/// copy of the recorder, which could write on into a block the original handed out, is refused
/// by the compiler: the recorder and its ``TransferState`` are `~Copyable`.)
@Suite struct ResponseHeadRecorderTests {
    /// Feeds `lines` as the guard would classify them: `HTTP/` lines start a head, empty lines end one.
    static func feed(_ recorder: inout ResponseHeadRecorder, _ lines: [String]) {
        for text in lines {
            Array(text.utf8).withUnsafeBytes { line in
                let kind: ResponseHeadGuard.LineKind =
                    text.hasPrefix("HTTP/") ? .statusLine : text == "\r\n" ? .blank : .headField
                recorder.take(line, as: kind)
            }
        }
    }

    static func name(_ text: String) -> HTTPField.Name { HTTPField.Name(text)! }

    @Test func aBlockHandedOutKeepsItsLinesWhileTheHeadGoesOn() {
        var recorder = ResponseHeadRecorder()
        Self.feed(&recorder, ["HTTP/1.1 200 OK\r\n", "X-A: a\r\n"])
        let early = recorder.headerBlock()
        Self.feed(&recorder, ["X-B: b\r\n", "\r\n"])
        let late = recorder.headerBlock()
        #expect(Array(early.fields) == [HTTPField(name: Self.name("X-A"), value: "a")])
        #expect(Array(late.fields) == [HTTPField(name: Self.name("X-A"), value: "a"), HTTPField(name: Self.name("X-B"), value: "b")])
    }

    @Test func aNextHeadNeitherShowsTheLastNorChangesItsBlock() {
        var recorder = ResponseHeadRecorder()
        Self.feed(&recorder, ["HTTP/1.1 401 Unauthorized\r\n", "WWW-Authenticate: Basic\r\n", "Set-Cookie: secret=1\r\n", "\r\n"])
        let challenge = recorder.headerBlock()
        Self.feed(&recorder, ["HTTP/1.1 200 OK\r\n", "X-C: c\r\n", "\r\n"])
        #expect(Array(recorder.headerBlock().fields) == [HTTPField(name: Self.name("X-C"), value: "c")])
        #expect(challenge.fields[.setCookie] == "secret=1")
        #expect(challenge.fields.count == 2)
    }

    @Test func anInterimHeadIsReplacedInPlace() {
        var recorder = ResponseHeadRecorder()
        Self.feed(&recorder, ["HTTP/1.1 103 Early Hints\r\n", "Link: </a>\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "X-D: d\r\n", "\r\n"])
        #expect(Array(recorder.headerBlock().fields) == [HTTPField(name: Self.name("X-D"), value: "d")])
    }

    @Test func aHeadLargerThanTheFirstRoomKeepsEveryLine() {
        var recorder = ResponseHeadRecorder()
        let values = (0..<200).map { "value-\($0)-" + String(repeating: "v", count: $0 % 37) }
        Self.feed(&recorder, ["HTTP/1.1 200 OK\r\n"] + values.map { "X-Many: \($0)\r\n" } + ["\r\n"])
        let fields = recorder.headerBlock().fields
        #expect(fields[values: Self.name("X-Many")] == values)
    }

    @Test func anEmptyRecorderHasNoFields() {
        var recorder = ResponseHeadRecorder()
        #expect(recorder.headerBlock().fields.isEmpty)
        Self.feed(&recorder, ["HTTP/1.1 204 No Content\r\n", "X-E: e\r\n"])
        #expect(Array(recorder.headerBlock().fields) == [HTTPField(name: Self.name("X-E"), value: "e")])
    }

    /// A block's fields, once parsed, belong to that block's lines: after the block is dropped,
    /// neither the head's later lines nor a next head (with or without field lines) may be
    /// answered with them.
    @Test func fieldsParsedForADroppedBlockAreNotServedForTheNextHead() {
        var recorder = ResponseHeadRecorder()
        Self.feed(&recorder, ["HTTP/1.1 401 Unauthorized\r\n", "Set-Cookie: secret=1\r\n"])
        do {
            let challenge = recorder.headerBlock()
            #expect(challenge.fields[.setCookie] == "secret=1")
        }
        Self.feed(&recorder, ["X-More: m\r\n"])
        #expect(Array(recorder.headerBlock().fields).map(\.value) == ["secret=1", "m"])
        Self.feed(&recorder, ["HTTP/1.1 200 OK\r\n", "X-G: g\r\n"])
        #expect(Array(recorder.headerBlock().fields) == [HTTPField(name: Self.name("X-G"), value: "g")])
        // A head with no field lines at all, after a parsed block was dropped.
        Self.feed(&recorder, ["HTTP/1.1 204 No Content\r\n", "\r\n"])
        #expect(recorder.headerBlock().fields.isEmpty)
    }

    /// A response is `Sendable`: the first read of its fields parses them once, under the block's
    /// lock, whichever threads read first.
    @Test func threadsReadingTheFieldsFirstAllSeeOneParse() async {
        var recorder = ResponseHeadRecorder()
        Self.feed(&recorder, ["HTTP/1.1 200 OK\r\n", "Content-Type: text/plain\r\n", "X-F:  f \r\n", "\r\n"])
        let block = recorder.headerBlock()
        let expected = HTTPFields([HTTPField(name: .contentType, value: "text/plain"), HTTPField(name: Self.name("X-F"), value: "f")])
        let reads = await withTaskGroup(of: HTTPFields.self) { group in
            for _ in 0..<8 { group.addTask { block.fields } }
            return await group.reduce(into: [HTTPFields]()) { $0.append($1) }
        }
        #expect(reads.count == 8)
        #expect(reads.allSatisfy { $0 == expected })
    }
}
