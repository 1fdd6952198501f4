#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

extension QueueJournal {
    /// Why a journal's bytes are not a journal: the line (counted from 1) and what is wrong with it.
    struct Damage: Error, Equatable, CustomStringConvertible {
        let line: Int
        let reason: String

        var description: String { "line \(line): \(reason)" }
    }

    /// The records in a journal's bytes, each checked, or the first line that is not one: a pure
    /// function, so that what a hostile or damaged file can do to a queue is decided here alone.
    ///
    /// Every line ends with `\n`; bytes after the last `\n` are an append a crash cut short, and
    /// are ignored (the queue never acted on a record before its line was complete and flushed).
    /// Every other line must be a record that ``check(_:against:)`` accepts; an empty line, text
    /// that is not such a record, an id enqueued twice or a record for an id never enqueued is
    /// damage. Dropping the line instead could bring back a download its cancel record cancelled.
    static func records(in bytes: Data) -> Result<[Record], Damage> {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        lines.removeLast()  // after the last `\n`: empty, or an append cut short
        var records: [Record] = []
        var destinations: [UInt64: String] = [:]
        let decoder = JSONDecoder()
        for (index, line) in lines.enumerated() {
            let damage = { (reason: String) in Damage(line: index + 1, reason: reason) }
            guard let record = try? decoder.decode(Record.self, from: Data(line)) else {
                return .failure(damage(line.isEmpty ? "an empty line" : "not a journal record"))
            }
            if let problem = check(record, against: destinations[record.id]) { return .failure(damage(problem)) }
            if record.operation == .enqueue, let destination = record.destination { destinations[record.id] = destination }
            records.append(record)
        }
        return .success(records)
    }

    /// Why `record` cannot be replayed, or `nil` when it can; `destination` is the destination its
    /// download was enqueued with, `nil` when its id was not enqueued yet.
    ///
    /// An id must be in ``DownloadQueueState/identifiers``; an `enqueue` must name a URL, an
    /// absolute destination (``isDestinationPath(_:)``), header lines and digest in form; a
    /// `checkpoint`'s resume data must name a partial file of that destination, beside it, and a
    /// validator `If-Range` may carry — so that nothing in a journal can make the queue touch a
    /// file other than a download's own partial file and destination.
    static func check(_ record: Record, against destination: String?) -> String? {
        guard DownloadQueueState.identifiers.contains(record.id) else {
            return "id \(record.id) is outside \(DownloadQueueState.identifiers)"
        }
        if record.operation == .enqueue {
            guard destination == nil else { return "download \(record.id) is enqueued twice" }
            return checkEnqueue(record)
        }
        guard let destination else { return "a \(record.operation.rawValue) record for download \(record.id), which was never enqueued" }
        switch record.operation {
        case .checkpoint:
            guard let resume = record.resume else { return "a checkpoint without resume data" }
            let target = URL(fileURLWithPath: destination)
            guard resume.destination.isFileURL, resume.destination.standardizedFileURL.path == destination else {
                return "a checkpoint for \(resume.destination.path.debugDescription), not the download's destination \(destination.debugDescription)"
            }
            do throws(RequestError) {
                try resume.check(resumingTo: target)
            } catch {
                return error.message
            }
        case .finish:
            if let sha256 = record.sha256, !isSHA256(sha256) { return "a digest that is not 64 lowercase hexadecimal digits" }
            if let bytes = record.bytes, bytes < 0 { return "a negative byte count" }
        case .enqueue, .fail, .cancel, .pause, .resume:
            break
        }
        return nil
    }

    private static func checkEnqueue(_ record: Record) -> String? {
        guard let url = record.url, !url.isEmpty, url.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            return "an enqueue without a URL, or with spaces or control characters in it"
        }
        guard let destination = record.destination, isDestinationPath(destination) else {
            return "an enqueue whose destination \((record.destination ?? "none").debugDescription) is not an absolute path to a file"
        }
        for pair in record.headers ?? [] {
            guard pair.count == 2, HTTPField.Name(pair[0]) != nil, HTTPField.isValidValue(pair[1]) else {
                return "an enqueue with a header line that is not a name and a value"
            }
        }
        if let expected = record.expectedSHA256, !isSHA256(expected) {
            return "an expected digest that is not 64 lowercase hexadecimal digits"
        }
        return nil
    }

    /// Whether `path` can be a download's destination in a journal: absolute, with a file name,
    /// without empty, `.` or `..` components (which could resolve anywhere), and without NUL.
    static func isDestinationPath(_ path: String) -> Bool {
        guard path.hasPrefix("/"), !path.hasSuffix("/"), !path.utf8.contains(0) else { return false }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// Whether `text` is a SHA-256 digest as the queue writes it: 64 lowercase hexadecimal digits.
    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
