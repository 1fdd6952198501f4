import Foundation

/// A journal's `enqueue` line, as the queue writes it.
struct QueueJournalLine: Encodable {
    var operation = "enqueue"
    var id: UInt64
    var url: String
    var headers: [[String]] = []
    var destination: String

    /// The line's JSON, without its newline.
    var text: String {
        get throws { String(decoding: try JSONEncoder().encode(self), as: UTF8.self) }
    }
}

/// A journal's `checkpoint` line for download `id`: `bytes` of `partial` on disk, of a resource of
/// `length` bytes whose ETag is `tag`, going to `destination`.
func checkpointLine(id: UInt64, url: String, tag: String, bytes: Int64, length: Int64, partial: URL, destination: URL) -> String {
    #"{"operation":"checkpoint","id":\#(id),"resume":{"url":"\#(url)","validator":{"entityTag":{"_0":"\"\#(tag)\""}},"#
        + #""bytesOnDisk":\#(bytes),"expectedLength":\#(length),"partialFileURL":"\#(partial.absoluteString)","destination":"\#(destination.absoluteString)"}}"#
}

/// Writes `lines` as the journal of the state directory `state` (created `mode`), each ended by a
/// newline.
func writeJournal(_ lines: [String], in state: URL, mode: Int = 0o700) throws {
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: state.path)
    try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: state.appendingPathComponent("journal"))
}
