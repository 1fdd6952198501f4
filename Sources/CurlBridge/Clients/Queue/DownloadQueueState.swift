#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The decisions of a ``DownloadQueue``, as a value: which download starts, what a transfer's
/// end means, what is journaled and reported. Each method changes the state and returns the
/// actions for the queue to perform, in order; it does no I/O, so it is tested without any.
///
/// Its methods are in one file per kind of event: `+Rejoining` (the journal read back on opening),
/// `+Controls` (the program's calls), `+Transfers` (scheduling and what a transfer's events mean).
/// Its fields are changed only by those methods; the queue reads them.
struct DownloadQueueState {
    /// One download.
    struct Entry {
        var download: QueuedDownload
        /// The request as journaled (no secrets): method `GET`, URL, header lines.
        var headers: [[String]]
        /// Whether the journaled URL lacks its query: then only ``original`` or the program's
        /// ``DownloadQueue/RejoinedRequest`` can send it.
        var omitsQuery = false
        /// The caller's own request, secrets included, while this process lives.
        var original: Request?
        /// What is safely on disk, as the last checkpoint said.
        var resume: ResumeData?
        /// Failures in a row that it was started again after.
        var failures = 0
        /// The backoff timer it waits out before it may start again, after a failure the
        /// ``RetryPolicy`` retries; `nil` when it may start as soon as a slot is free.
        var retryTimer: UInt64?
        /// A pause was asked while it ran: its end pauses it.
        var pauseAsked = false
        /// A cancel was asked while it ran.
        var cancelAsked = false
    }

    enum Action: Equatable {
        case journal(QueueJournal.Record)
        case start(id: UInt64)
        /// Start a timer of `delay` whose end is ``retryWaitEnded(_:timer:)``: the download waits
        /// out the ``RetryPolicy``'s backoff before it may start again.
        case retryAfter(id: UInt64, delay: Duration, timer: UInt64)
        /// Cancel the download's backoff `timer`: it was paused, cancelled or the queue closed. The
        /// timer is named so that an action performed late cannot cancel a newer wait.
        case cancelRetryWait(id: UInt64, timer: UInt64)
        /// Stop the running transfer, producing resume data.
        case stop(id: UInt64)
        /// Delete a partial file nobody will resume.
        case discard(ResumeData)
        case emit(Event)
    }

    /// What the queue reports, without its payloads' heavy parts.
    enum Event: Equatable {
        case changed(UInt64)
        case diskFull(String)
    }

    /// Every download, by id.
    var entries: [UInt64: Entry] = [:]
    /// Ids in the order they were enqueued.
    var order: [UInt64] = []
    let concurrency: Int
    /// Whether, and after how long, a failed transfer starts again.
    let retries: RetryPolicy
    /// What the retry decisions read from the world: the wall clock (for a `Retry-After` date) and
    /// a number in `0..<1` (the backoff's jitter), the system's or a test's fixed ones.
    let readings: Readings
    /// The type of ``readings``.
    typealias Readings = @Sendable () -> (now: Date, jitter: Double)
    /// The system's wall clock and random source.
    static let systemReadings: Readings = { (Date(), Double.random(in: 0..<1)) }
    /// The id the next enqueued download gets.
    var nextID: UInt64 = 1
    /// The last backoff timer handed out: each wait has its own, so a late one is told apart.
    var lastTimer: UInt64 = 0
    /// The ids a download can have: never `UInt64.max`, so that the next id always exists.
    static let identifiers: ClosedRange<UInt64> = 1...(UInt64.max - 1)
    /// The queue is closing: nothing new starts, and a transfer that `close()` stopped waits for
    /// the next queue on the directory.
    var isClosing = false

    init(concurrency: Int, retries: RetryPolicy, readings: @escaping Readings = systemReadings) {
        self.concurrency = max(1, concurrency)
        self.retries = retries
        self.readings = readings
    }

    /// How many downloads are transferring.
    var running: Int { entries.values.filter { $0.download.state == .running }.count }

    /// Every id, in order.
    var ids: [UInt64] { order }

    /// Ends `entry`'s backoff wait, if it has one: the action that cancels its timer.
    static func endRetryWait(_ entry: inout Entry) -> [Action] {
        guard let timer = entry.retryTimer else { return [] }
        entry.retryTimer = nil
        return [.cancelRetryWait(id: entry.download.id, timer: timer)]
    }

    /// The whole queue's progress.
    var progress: DownloadQueueProgress {
        let counted = entries.values.map(\.download).filter { $0.state != .cancelled }
        let lengths = counted.map(\.expectedLength)
        return DownloadQueueProgress(
            downloads: counted.count, finished: counted.filter { $0.state == .finished }.count,
            bytesOnDisk: counted.reduce(0) { ByteCount.sum($0, $1.bytesOnDisk) },
            expectedBytes: lengths.contains(nil) ? nil : lengths.reduce(0) { ByteCount.sum($0, $1 ?? 0) })
    }
}
