import Foundation
import FuzzSupport
@testable import CurlBridge

/// A download queue's journal replayed as a queue opening replays it: `QueueJournal.records(in:)`,
/// then `DownloadQueueState.replay` and `compacted`, on bytes a damaged disk or a hostile hand
/// could leave in the state directory. The first field picks how the journal is made:
/// 0. raw fuzzed bytes;
/// 1. lines of records made of fuzzed values (operations, ids near the ends of their range, URLs,
///    header pairs, destinations with `.`, `..` and empty components, checkpoints whose partial
///    file is or is not the destination's, digests, byte counts, validators), encoded as the
///    queue encodes them, with fuzzed bytes after the last line;
/// 2. a journal the queue wrote itself (enqueue, checkpoint, pause, finish, cancel) with fuzzed
///    byte flips, then cut short or extended.
///
/// Invariants: nothing traps. A damaged journal names a line from 1 to the number of complete
/// lines. Bytes after the last newline never change the result. A journal read whole replays and
/// compacts; its compacted records, written as lines, read back as exactly those records; every
/// id is in `DownloadQueueState.identifiers`, every destination an absolute path without `.`,
/// `..` or empty components, and every checkpoint's partial file one of its own destination's.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournal(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let journal: Data = switch input.number(in: 0...2) {
    case 0: Data(input.bytes())
    case 1: lines(of: records(&input)) + Data(input.bytes().filter { $0 != UInt8(ascii: "\n") })
    default: edited(&input)
    }
    check(journal, tail: input.bytes().filter { $0 != UInt8(ascii: "\n") })
    return 0
}

private func check(_ journal: Data, tail: [UInt8]) {
    let result = QueueJournal.records(in: journal)
    let shown = String(decoding: journal.prefix(2_000), as: UTF8.self).debugDescription
    require(QueueJournal.records(in: journal + tail) == result, "bytes after the last newline changed what \(shown) reads as")
    switch result {
    case .failure(let damage):
        let completeLines = journal.filter { $0 == UInt8(ascii: "\n") }.count
        require((1...max(1, completeLines)).contains(damage.line), "damage at line \(damage.line) of \(completeLines) in \(shown)")
    case .success(let records):
        var state = DownloadQueueState(concurrency: 2, maximumFailures: 2)
        state.replay(records)
        let compacted = state.compacted
        require(QueueJournal.records(in: lines(of: compacted)) == .success(compacted), "the compacted journal of \(shown) does not read back")
        for record in compacted {
            require(DownloadQueueState.identifiers.contains(record.id), "id \(record.id) replayed from \(shown)")
            if let destination = record.destination {
                require(QueueJournal.isDestinationPath(destination), "destination \(destination.debugDescription) replayed from \(shown)")
            }
            if let resume = record.resume {
                require(
                    PartialFileName.isPartialFile(resume.partialFileURL, of: resume.destination),
                    "partial file \(resume.partialFileURL.path.debugDescription) replayed for \(resume.destination.path.debugDescription)")
            }
        }
    }
}

/// `records` as the queue writes them: one JSON line each.
private func lines(of records: [QueueJournal.Record]) -> Data {
    var data = Data()
    for record in records {
        guard let line = try? JSONEncoder().encode(record) else { continue }
        data.append(line)
        data.append(UInt8(ascii: "\n"))
    }
    return data
}

private func records(_ input: inout FuzzInput) -> [QueueJournal.Record] {
    var records: [QueueJournal.Record] = []
    let operations: [QueueJournal.Record.Operation] = [.enqueue, .checkpoint, .finish, .fail, .cancel, .pause, .resume]
    while !input.isAtEnd, records.count < 64 {
        let operation = input.pick(operations)
        let id = input.pick([UInt64(1), 2, 3, 0, UInt64.max, UInt64.max - 1, UInt64(input.number(in: 0...1_000))])
        let destination = input.pick(["/tmp/q/file", "/tmp/q/../etc/passwd", "relative/file", "/tmp/q/", "/tmp//q/file", "/tmp/q/./f", input.string()])
        let partial = input.pick([".file.abc123.curlbridge-partial", ".other.abc.curlbridge-partial", "victim", ".file..curlbridge-partial", input.string()])
        let partialDirectory = input.pick(["/tmp/q/", "/etc/", input.string()])
        var record = QueueJournal.Record(operation: operation, id: id)
        switch operation {
        case .enqueue:
            record.url = input.pick(["https://example.com/f?token=1", "", "http://a b/", input.string()])
            record.destination = destination
            record.headers = input.flag() ? [[input.string(), input.string()], [input.string()]] : []
            record.expectedSHA256 = input.pick([nil, String(repeating: "a", count: 64), input.string()])
            record.omitsQuery = input.pick([nil, true, false])
        case .checkpoint:
            let validator: ResumeData.Validator = input.flag() ? .entityTag(input.pick(["\"e\"", "W/\"e\"", input.string()])) : .lastModified(input.string())
            record.resume = ResumeData(
                url: input.string(), validator: validator, bytesOnDisk: Int64(input.number(in: -5...(1 << 62))),
                partialFileURL: URL(fileURLWithPath: partialDirectory + partial), destination: URL(fileURLWithPath: destination),
                expectedLength: input.flag() ? Int64(input.number(in: -5...(1 << 62))) : nil)
        case .finish:
            record.sha256 = input.pick([nil, String(repeating: "0", count: 64), input.string()])
            record.bytes = input.flag() ? Int64(input.number(in: -5...(1 << 62))) : nil
        case .fail:
            record.error = input.string()
        case .cancel, .pause, .resume:
            break
        }
        records.append(record)
    }
    return records
}

/// A journal the queue itself would write for one download, with byte flips, cut or extended.
private func edited(_ input: inout FuzzInput) -> Data {
    let destination = URL(fileURLWithPath: "/tmp/q/file")
    var state = DownloadQueueState(concurrency: 1, maximumFailures: 2)
    var journal: [QueueJournal.Record] = []
    guard let (id, actions) = state.enqueue(
        url: StoredURL("https://example.com/file?token=1"), headers: [["X-A", "1"]], destination: destination,
        original: .get("https://example.com/file?token=1"))
    else { return Data(input.bytes()) }
    for case .journal(let record) in actions { journal.append(record) }
    let resume = ResumeData(
        url: "https://example.com/file", validator: .entityTag("\"v1\""), bytesOnDisk: 65_536,
        partialFileURL: URL(fileURLWithPath: "/tmp/q/.file.abc123.curlbridge-partial"), destination: destination, expectedLength: 1 << 20)
    for case .journal(let record) in state.checkpoint(id, resume) { journal.append(record) }
    for case .journal(let record) in state.pause(id) + state.resume(id) + state.cancel(id) { journal.append(record) }
    var bytes = [UInt8](lines(of: journal))
    for _ in 0..<input.number(in: 0...8) where !bytes.isEmpty {
        let position = input.number(in: 0...(bytes.count - 1))
        bytes[position] ^= UInt8(truncatingIfNeeded: input.number(in: 1...255))
    }
    let length = input.number(in: 0...bytes.count)
    return Data(bytes.prefix(length)) + Data(input.bytes())
}
