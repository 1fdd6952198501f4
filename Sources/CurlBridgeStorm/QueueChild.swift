import CurlBridge
import Dispatch
import Foundation
import Synchronization

/// `CurlBridgeStorm queue-child`: the process `queue-crash` kills. It opens a ``DownloadQueue``
/// on its state directory, prints what opening recovered (a ``RecoveryLine``), enqueues one
/// download per URL into the output directory unless the journal has it already (a reopened
/// queue rejoins its own), waits for all of them, and prints one ``DownloadLine`` each.
struct QueueChild {
    struct Options {
        var state: URL
        var output: URL
        var checkpointInterval: Int64
        var concurrency: Int
        var urls: [String]
    }

    /// The file download `index` goes to.
    static func fileName(_ index: Int) -> String { "file-\(index).bin" }

    let options: Options

    /// Runs the downloads; returns 0 when every one finished.
    func run() throws -> Int32 {
        let queue = try DownloadQueue(
            stateDirectory: options.state, transport: Transport(),
            options: DownloadQueue.Options(maximumConcurrentDownloads: options.concurrency, checkpointInterval: options.checkpointInterval))
        let opened = queue.downloads
        print(RecoveryLine(recovery: queue.recovery, kept: opened.reduce(0) { $0 + $1.bytesOnDisk }, downloads: opened.count).text)
        fflush(nil)  // every stream: stdout is a pipe, so buffered
        // Each file once: a child killed while enqueueing left the first ones in the journal.
        let queued = Set(opened.map(\.destination.lastPathComponent))
        for (index, url) in options.urls.enumerated() where !queued.contains(Self.fileName(index)) {
            try queue.enqueue(.get(url), to: options.output.appendingPathComponent(Self.fileName(index)))
        }
        let downloads = try Self.waitForAll(queue)
        for download in downloads { print(DownloadLine(download).text) }
        fflush(nil)  // every stream: stdout is a pipe, so buffered
        return downloads.allSatisfy { $0.state == .finished } ? 0 : 1
    }

    /// `queue.waitForAll()` on a thread of its own: the queue refuses to block the main thread.
    private static func waitForAll(_ queue: DownloadQueue) throws(RequestError) -> [QueuedDownload] {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<[QueuedDownload], RequestError>?>(nil)  // set before the signal, read after the wait
        Thread.detachNewThread {
            let downloads = Result { () throws(RequestError) in try queue.waitForAll() }
            result.withLock { $0 = downloads }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0 }!.get()
    }
}

/// What a child printed right after opening its queue:
/// `recovery rejoined=R discarded=D finishedOnOpening=F kept=K downloads=N`, `kept` being the
/// bytes of every download safely on disk as the journal says.
struct RecoveryLine {
    static let prefix = "recovery "
    var rejoined: Int
    var discarded: Int64
    var finishedOnOpening: Int
    var kept: Int64
    var downloads: Int

    init(recovery: DownloadQueue.Recovery, kept: Int64, downloads: Int) {
        rejoined = recovery.rejoined
        discarded = recovery.discardedBytes
        finishedOnOpening = recovery.finishedOnOpening
        self.kept = kept
        self.downloads = downloads
    }

    /// Reads `line`; `nil` when it is not a recovery line.
    init?(_ line: String) {
        guard line.hasPrefix(Self.prefix) else { return nil }
        let fields = keyValues(line)
        guard let rejoined = fields["rejoined"].flatMap({ Int($0) }), let discarded = fields["discarded"].flatMap({ Int64($0) }),
              let finished = fields["finishedOnOpening"].flatMap({ Int($0) }), let kept = fields["kept"].flatMap({ Int64($0) }),
              let downloads = fields["downloads"].flatMap({ Int($0) })
        else { return nil }
        (self.rejoined, self.discarded, finishedOnOpening, self.kept, self.downloads) = (rejoined, discarded, finished, kept, downloads)
    }

    var text: String {
        Self.prefix + "rejoined=\(rejoined) discarded=\(discarded) finishedOnOpening=\(finishedOnOpening) kept=\(kept) downloads=\(downloads)"
    }
}

/// What a child printed for each download once all were done:
/// `download id=I file=NAME state=S sha256=HEX bytes=B` (`sha256=-` when the queue has none).
struct DownloadLine {
    static let prefix = "download "
    var id: UInt64
    var file: String
    var state: String
    var sha256: String?
    var bytes: Int64

    init(_ download: QueuedDownload) {
        id = download.id
        file = download.destination.lastPathComponent
        state = download.state.rawValue
        sha256 = download.sha256
        bytes = download.bytesOnDisk
    }

    /// Reads `line`; `nil` when it is not a download line.
    init?(_ line: String) {
        guard line.hasPrefix(Self.prefix) else { return nil }
        let fields = keyValues(line)
        guard let id = fields["id"].flatMap({ UInt64($0) }), let file = fields["file"], let state = fields["state"],
              let sha256 = fields["sha256"], let bytes = fields["bytes"].flatMap({ Int64($0) })
        else { return nil }
        (self.id, self.file, self.state, self.bytes) = (id, file, state, bytes)
        self.sha256 = sha256 == "-" ? nil : sha256
    }

    var text: String {
        Self.prefix + "id=\(id) file=\(file) state=\(state) sha256=\(sha256 ?? "-") bytes=\(bytes)"
    }
}

/// The `key=value` words of `line`.
private func keyValues(_ line: String) -> [String: String] {
    var fields: [String: String] = [:]
    for word in line.split(separator: " ") {
        let parts = word.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    return fields
}
