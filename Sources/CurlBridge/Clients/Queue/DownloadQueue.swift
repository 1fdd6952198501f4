import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes

/// Downloads that survive the process: the Linux counterpart of a background `URLSession`.
///
/// A queue keeps a journal in its state directory of each download's request, destination,
/// validator and how many bytes are safely on disk (flushed before the journal says so, every
/// ``Options/checkpointInterval`` bytes). Kill the process at any moment and open a queue on the
/// same directory: it rejoins every unfinished download and resumes it with `Range`/`If-Range`
/// from the last checkpoint; a changed resource restarts from zero; a finished one is never
/// fetched again.
///
/// ```swift
/// let queue = try DownloadQueue(stateDirectory: state, transport: transport)
/// let id = try queue.enqueue(.get("https://example.com/big.iso"), to: destination, expectedSHA256: digest)
/// for await event in queue.events { … }
/// ```
///
/// **The state directory is this user's alone:** created `0700`; an existing one is refused when
/// it is a symbolic link, another user's, or writable by its group or others, and every file in it
/// is opened without following links. The journal's records are checked when it is read: a
/// damaged line fails the opening (or, with ``Options/setsAsideDamagedJournal``, sets the journal
/// aside), and no record can make the queue touch any file but a download's own partial file and
/// destination.
///
/// **Secrets stay out of the journal:** `Authorization`, `Proxy-Authorization`, `Cookie`, the
/// request's sensitive headers, its ``Request/credential`` and the user info of its URL are used
/// while this process lives, never written; a download rejoined by a later process gets its
/// credentials from the transport's configuration (``Configuration/credentials``, interceptors)
/// or from the program's ``RejoinedRequest``. The URL's query is journaled, since a later process
/// must send it again, unless ``Options/journalsQuery`` is `false`: then the program gives the
/// request again when the download is rejoined.
///
/// Events come three ways: ``events`` (an `AsyncSequence`), ``onEvent(queue:_:)`` (callbacks on a
/// queue), and ``wait(for:)`` / ``waitForAll()`` (blocking).
///
/// Opening a queue, ``enqueue(_:to:expectedSHA256:)``, and the pause, resume and cancel calls return once the
/// journal is flushed to the disk (`fsync`): usually a millisecond, but as long as the disk takes
/// when it is busy. In a Swift task that must not hold a thread of the cooperative pool that long,
/// make them from a thread of your own. Reading the queue (``downloads``, ``progress``) never waits
/// for the disk: records are written under the queue's lock and flushed after it is released.
public final class DownloadQueue: Sendable {
    /// The state directory.
    public let stateDirectory: URL
    /// What opening found.
    public let recovery: Recovery
    /// Sends the downloads.
    let client: CallbackClient
    /// How the queue runs.
    let options: Options
    /// Gives the request of a download this process did not enqueue.
    let rejoinedRequest: RejoinedRequest?
    /// Everything that changes, under one lock.
    let state: PosixLock<Shared>
    /// Flushes a journal descriptor to the disk: `fsync`, or a test's stand-in that holds it.
    let sync: @Sendable (Int32) -> Int32
    /// Where events are delivered, in order.
    let delivery = DispatchQueue(label: "CurlBridge.DownloadQueue.events")
    /// Where backoff timers run out.
    let timers = DispatchQueue(label: "CurlBridge.DownloadQueue.timers")
    /// Told of each backoff wait as the machine decided it (tests read the delays from it).
    let retryWaitDecided: @Sendable (_ id: UInt64, _ delay: Duration) -> Void

    /// The queue's changing state: its decisions, journal, transfers, listeners and phase.
    struct Shared {
        var machine: DownloadQueueState
        /// `nil` once the queue is closed: nothing is decided or journaled after that.
        var journal: QueueJournal?
        var tasks: [UInt64: DownloadTask] = [:]
        /// The backoff timer each download waits out, by download.
        var retryWaits: [UInt64: (timer: UInt64, item: DispatchWorkItem)] = [:]
        var streams: [UUID: AsyncStream<DownloadQueueEvent>.Continuation] = [:]
        var handlers: [(DispatchQueue, @Sendable (DownloadQueueEvent) -> Void)] = []
        var waiters: [(ids: Set<UInt64>?, signal: DispatchSemaphore)] = []
        var phase = Phase.open
        /// Called once the queue is closed.
        var closeWaiters: [@Sendable () -> Void] = []
    }

    /// Where a queue is in its life.
    enum Phase {
        case open
        /// ``close()`` was called: its transfers are stopping.
        case closing
        /// The journal is closed and the directory released.
        case closed
    }

    /// Opens the queue of `stateDirectory` (created `0700` if missing) and rejoins its unfinished
    /// downloads.
    ///
    /// - Parameters:
    ///   - stateDirectory: Where the journal is; an existing directory must be this user's, not a
    ///     symbolic link, and not writable by its group or others.
    ///   - transport: Sends the downloads; its configuration gives a rejoined download its
    ///     credentials (``Configuration/credentials``).
    ///   - options: Concurrency, checkpoints, failures, digests, what is journaled.
    ///   - rejoinedRequest: Gives the request of a download this process did not enqueue; `nil` by
    ///     default, when the journaled request is sent.
    /// - Throws: ``RequestError/Code/fileIO`` when the directory cannot be trusted or written, is
    ///   open in another queue, or its journal is damaged (see ``Options/setsAsideDamagedJournal``).
    public convenience init(
        stateDirectory: URL, transport: Transport, options: Options = Options(), rejoinedRequest: RejoinedRequest? = nil
    ) throws(RequestError) {
        try self.init(stateDirectory: stateDirectory, transport: transport, options: options, rejoinedRequest: rejoinedRequest) {
            fsync($0)
        }
    }

    /// A queue whose journal appends are flushed by `sync` (tests hold a flush to see who waits),
    /// whose retry decisions read `readings`, and which tells `retryWaitDecided` of each backoff.
    init(
        stateDirectory: URL, transport: Transport, options: Options = Options(), rejoinedRequest: RejoinedRequest? = nil,
        readings: @escaping DownloadQueueState.Readings = DownloadQueueState.systemReadings,
        retryWaitDecided: @escaping @Sendable (_ id: UInt64, _ delay: Duration) -> Void = { _, _ in },
        sync: @escaping @Sendable (Int32) -> Int32
    ) throws(RequestError) {
        self.sync = sync
        self.retryWaitDecided = retryWaitDecided
        self.stateDirectory = stateDirectory
        self.options = options
        self.rejoinedRequest = rejoinedRequest
        client = CallbackClient(transport: transport)
        var opened = try QueueJournal.open(in: stateDirectory, setsAsideDamage: options.setsAsideDamagedJournal)
        var machine = DownloadQueueState(concurrency: options.maximumConcurrentDownloads, retries: options.retryPolicy, readings: readings)
        machine.replay(opened.records)
        var recovery = Recovery(rejoined: 0, discardedBytes: 0, finishedOnOpening: 0, damagedJournal: opened.setAside)
        for id in machine.ids {
            guard let entry = machine.entries[id], !entry.download.state.isFinal else { continue }
            recovery.rejoined += 1
            let tidied = Self.rejoin(entry, computesSHA256: options.computesSHA256)
            recovery.discardedBytes = ByteCount.sum(recovery.discardedBytes, tidied.discarded)
            switch tidied.outcome {
            case .unfinished:
                break
            case .finished(let digest):
                _ = machine.finishedOnRejoin(id, sha256: digest)
                recovery.finishedOnOpening += 1
            case .failed(let error):
                _ = machine.failedOnRejoin(id, error)
            }
        }
        do throws(RequestError) {
            try opened.journal.rewrite(machine.compacted)
        } catch {
            opened.journal.close()
            throw error
        }
        self.recovery = recovery
        state = PosixLock(Shared(machine: machine, journal: opened.journal))
        perform(state.withLock { $0.machine.schedule() })
    }

    /// A queue released without ``close()`` closes its journal and releases its directory at once,
    /// ends its event streams and stops its transfers, whose partial files stay for the next queue
    /// on the directory (it resumes them from their last checkpoint). Until those transfers have
    /// wound down, a new queue on the directory may find it still open: ``close()`` first.
    deinit {
        let tasks = state.withLock { shared in
            shared.journal?.close()
            for continuation in shared.streams.values { continuation.finish() }
            for wait in shared.retryWaits.values { wait.item.cancel() }
            return Array(shared.tasks.values)
        }
        for task in tasks { task.cancel() }
    }
}
