@testable import CurlBridge
import Foundation
import Testing

/// Reading a journal back: bytes in, records or the first damaged line out, with no I/O — what a
/// hostile or damaged journal can do to a queue is decided here alone.
@Suite("QueueJournal.records(in:): a journal's bytes, checked")
struct QueueJournalRecordsTests {
    private static let destination = "/dl/file.bin"
    private static let enqueue = #"{"operation":"enqueue","id":1,"url":"http://h/f","headers":[["X-Trace","t"]],"destination":"/dl/file.bin"}"#

    private static func checkpoint(partial: String = "file:///dl/.file.bin.k1.curlbridge-partial", destination: String = "file:///dl/file.bin",
                                   tag: String = #"\"v1\""#, bytes: Int = 10, length: Int = 100) -> String {
        #"{"operation":"checkpoint","id":1,"resume":{"url":"http://h/f","validator":{"entityTag":{"_0":"\#(tag)"}},"#
            + #""bytesOnDisk":\#(bytes),"expectedLength":\#(length),"partialFileURL":"\#(partial)","destination":"\#(destination)"}}"#
    }

    private func read(_ lines: [String], tail: String = "") -> Result<[QueueJournal.Record], QueueJournal.Damage> {
        QueueJournal.records(in: Data((lines.map { $0 + "\n" }.joined() + tail).utf8))
    }

    /// The damaged line's number and reason, or `nil` when the lines read.
    private func damage(_ lines: [String]) -> QueueJournal.Damage? {
        if case .failure(let damage) = read(lines) { damage } else { nil }
    }

    @Test("Nothing is no records; a last line without its newline is an append a crash cut short")
    func emptyAndTornTail() throws {
        #expect(try QueueJournal.records(in: Data()).get().isEmpty)
        #expect(try read([], tail: "{\"operation\":\"enq").get().isEmpty)
        let records = try read([Self.enqueue], tail: #"{"operation":"cancel","id":1}"#).get()
        #expect(records.map(\.operation) == [.enqueue], "not yet flushed with its newline: never acted on")
        #expect(try read([Self.enqueue, Self.checkpoint(), #"{"operation":"cancel","id":1}"#]).get().count == 3)
    }

    @Test("A damaged line anywhere but at the very end is an error with its number", arguments: [
        "", "{", "garbage", #"{"operation":"cancel","id":1"#, #"{"operation":"explode","id":1}"#, "\u{0}\u{0}\u{0}",
    ])
    func damagedMiddleLine(line: String) {
        #expect(damage([Self.enqueue, line, #"{"operation":"pause","id":1}"#])?.line == 2)
    }

    @Test("Ids are 1 ... UInt64.max - 1; every record but enqueue needs an enqueued id, enqueued once", arguments: [
        (#"{"operation":"enqueue","id":18446744073709551615,"url":"http://h/f","destination":"/dl/x"}"#, "outside"),
        (#"{"operation":"enqueue","id":0,"url":"http://h/f","destination":"/dl/x"}"#, "outside"),
        (#"{"operation":"enqueue","id":-1,"url":"http://h/f","destination":"/dl/x"}"#, "not a journal record"),
        (#"{"operation":"cancel","id":2}"#, "never enqueued"),
        (enqueue, "enqueued twice"),
    ])
    func identifiers(line: String, reason: String) {
        let found = damage([Self.enqueue, line])
        #expect(found?.line == 2 && found?.reason.contains(reason) == true, "\(String(describing: found))")
    }

    @Test("An enqueue needs a URL, an absolute destination naming a file, header lines and a digest in form", arguments: [
        #"{"operation":"enqueue","id":2,"destination":"/dl/x"}"#,
        #"{"operation":"enqueue","id":2,"url":"http://h/a b","destination":"/dl/x"}"#,
        #"{"operation":"enqueue","id":2,"url":"http://h/f","destination":"dl/x"}"#,
        #"{"operation":"enqueue","id":2,"url":"http://h/f","destination":"/dl/../etc/x"}"#,
        #"{"operation":"enqueue","id":2,"url":"http://h/f","destination":"/dl/x/"}"#,
        #"{"operation":"enqueue","id":2,"url":"http://h/f","destination":"/"}"#,
        #"{"operation":"enqueue","id":2,"url":"http://h/f","destination":"/dl//x"}"#,
        #"{"operation":"enqueue","id":2,"url":"http://h/f","destination":"/dl/x","headers":[["X-A"]]}"#,
        #"{"operation":"enqueue","id":2,"url":"http://h/f","destination":"/dl/x","headers":[["Bad Name","v"]]}"#,
        #"{"operation":"enqueue","id":2,"url":"http://h/f","destination":"/dl/x","headers":[["X-A","v\r\nX-B: w"]]}"#,
        #"{"operation":"enqueue","id":2,"url":"http://h/f","destination":"/dl/x","expectedSHA256":"abc"}"#,
        #"{"operation":"finish","id":1,"sha256":"ABCDEF"}"#,
        #"{"operation":"finish","id":1,"bytes":-5}"#,
    ])
    func malformedRecords(line: String) {
        #expect(damage([Self.enqueue, line])?.line == 2)
    }

    @Test("A checkpoint names a partial file of its own destination, beside it, under a strong validator", arguments: [
        checkpoint(partial: "file:///home/u/.ssh/authorized_keys"),
        checkpoint(partial: "file:///dl/other.txt"),
        checkpoint(partial: "file:///elsewhere/.file.bin.k1.curlbridge-partial"),
        checkpoint(partial: "file:///dl/sub/../.file.bin.k1.curlbridge-partial"),
        checkpoint(partial: "file:///dl/.other.bin.k1.curlbridge-partial"),
        checkpoint(destination: "file:///dl/other.bin"),
        checkpoint(tag: #"W/\"v1\""#),
        checkpoint(bytes: 200, length: 100),
        checkpoint(bytes: -1),
        #"{"operation":"checkpoint","id":1}"#,
    ])
    func forgedCheckpoints(line: String) {
        #expect(damage([Self.enqueue, line])?.line == 2, "\(line)")
    }

    @Test("What a queue writes, it reads back")
    func compactedJournalReads() throws {
        var state = DownloadQueueState.fixture(concurrency: 1, failures: 1)
        let destination = URL(fileURLWithPath: Self.destination)
        _ = state.enqueue(url: StoredURL("http://u:p@h/f?t=1", keepsQuery: false), headers: [["X-Trace", "t"]], destination: destination,
                          expectedSHA256: String(repeating: "a", count: 64), original: .get("http://h/f"))
        _ = state.checkpoint(1, ResumeData(
            url: "http://u:p@h/f?t=1", validator: .entityTag(#""v1""#), bytesOnDisk: 10,
            partialFileURL: URL(fileURLWithPath: "/dl/.file.bin.k1.curlbridge-partial"), destination: destination, expectedLength: 100))
        _ = state.pause(1)
        let bytes = try state.compacted.map { try JSONEncoder().encode($0) + Data("\n".utf8) }.reduce(Data(), +)
        let records = try QueueJournal.records(in: bytes).get()
        #expect(records == state.compacted)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("u:p") && !text.contains("t=1"), "\(text)")
    }
}
