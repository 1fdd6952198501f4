import Dispatch
import Foundation
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
    private let client: CallbackClient
    private let options: Options
    private let rejoinedRequest: RejoinedRequest?
    private let state: PosixLock<Shared>
    /// Flushes a journal descriptor to the disk: `fsync`, or a test's stand-in that holds it.
    private let sync: @Sendable (Int32) -> Int32
    /// Where events are delivered, in order.
    private let delivery = DispatchQueue(label: "CurlBridge.DownloadQueue.events")
    /// Where backoff timers run out.
    private let timers = DispatchQueue(label: "CurlBridge.DownloadQueue.timers")
    /// Told of each backoff wait as the machine decided it (tests read the delays from it).
    private let retryWaitDecided: @Sendable (_ id: UInt64, _ delay: Duration) -> Void

    private struct Shared {
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
    private enum Phase {
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
        readings: RequestStateMachine.Readings = .system,
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
            recovery.discardedBytes = recovery.discardedBytes.addingSaturated(tidied.discarded)
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

    // MARK: The caller

    /// Adds a `GET` download of `request` to `destination` (its directory created if missing; an
    /// existing file is replaced when the download finishes) and returns its identifier, once the
    /// journal holds it.
    ///
    /// The journal keeps the request without its secrets: no `Authorization`, `Proxy-Authorization`
    /// or `Cookie`, no sensitive header, no ``Request/credential`` and no user info in the URL; the
    /// query unless ``Options/journalsQuery`` is `false`.
    ///
    /// - Parameters:
    ///   - request: A `GET` without a body.
    ///   - destination: A `file:` URL naming a file.
    ///   - expectedSHA256: The SHA-256 the file must have, as 64 hexadecimal digits; `nil` by
    ///     default. Journaled with the download: a file with another digest (in this process or a
    ///     later one) fails the download with ``RequestError/Code/integrityMismatch`` and is never
    ///     moved into place.
    /// - Throws: ``RequestError/Code/invalidMethod`` for a method other than `GET`, with a body;
    ///   ``RequestError/Code/integrityMismatch`` for an `expectedSHA256` that is not 64
    ///   hexadecimal digits (no file could match it); ``RequestError/Code/fileIO`` for a
    ///   destination that is not a file path, when the journal cannot be written, the queue is
    ///   closing, or it has used every identifier.
    @discardableResult
    public func enqueue(_ request: Request, to destination: URL, expectedSHA256: String? = nil) throws(RequestError) -> UInt64 {
        try Self.checkIsDownload(request)
        let path = destination.standardizedFileURL.path
        guard destination.isFileURL, QueueJournal.isDestinationPath(path) else {
            throw RequestError(.fileIO, "the destination \(destination.absoluteString.debugDescription) is not a file URL naming a file")
        }
        let expected = expectedSHA256?.lowercased()
        if let expected, !QueueJournal.isSHA256(expected) {
            throw RequestError(
                .integrityMismatch, "the expected SHA-256 \(expected.debugDescription) is not 64 hexadecimal digits: no file can match it")
        }
        let secret: Set<HTTPField.Name> = request.sensitiveHeaderNames.union([.authorization, .proxyAuthorization, .cookie])
        let headers = request.headerFields.filter { !secret.contains($0.name) }.map { [$0.name.rawName, $0.value] }
        let url = StoredURL(request.url, keepsQuery: options.journalsQuery)
        let (id, actions, flush) = try state.withLock {
            (shared: inout Shared) throws(RequestError) -> (UInt64, [DownloadQueueState.Action], QueueJournal.PendingFlush?) in
            guard shared.phase == .open, shared.journal != nil else {
                throw RequestError(.fileIO, "the download queue of \(stateDirectory.path) is closed")
            }
            var machine = shared.machine
            guard let (id, actions) = machine.enqueue(
                url: url, headers: headers, destination: URL(fileURLWithPath: path), expectedSHA256: expected, original: request)
            else {
                throw RequestError(.fileIO, "the download queue of \(stateDirectory.path) has used every identifier")
            }
            if case .journal(let record)? = actions.first { try shared.journal?.append(record) }
            shared.machine = machine
            return (id, Array(actions.dropFirst()), shared.journal?.pendingFlush())
        }
        // Flushed outside the lock; a disk that refuses the flush (the record is written) is
        // reported as a full disk is, and the download stays queued.
        if let failure = flush?.run(sync) { emit(.diskFull(failure)) }
        perform(actions)
        return id
    }

    /// Throws unless `request` is a `GET` without a body: what a queue sends.
    private static func checkIsDownload(_ request: Request) throws(RequestError) {
        guard request.method == .get, request.body == nil else {
            throw RequestError(.invalidMethod, "a download queue sends GET requests without a body", method: request.method, url: request.url)
        }
    }

    /// Every download, in the order enqueued.
    public var downloads: [QueuedDownload] {
        state.withLock { shared in shared.machine.ids.compactMap { shared.machine.entries[$0]?.download } }
    }

    /// The download `id`, if the queue has it.
    public func download(_ id: UInt64) -> QueuedDownload? {
        state.withLock { $0.machine.entries[id]?.download }
    }

    /// The whole queue's progress.
    public var progress: DownloadQueueProgress {
        state.withLock { $0.machine.progress }
    }

    /// Closes the queue and returns once its state directory is released: its running transfers
    /// stop, each with its bytes on disk journaled (they wait for the next queue on the directory,
    /// which resumes them), the journal is closed, the event streams end and blocked waits return.
    /// A queue opened on the directory right after finds every download where this one left it.
    ///
    /// Once it is called, ``enqueue(_:to:expectedSHA256:)`` throws and the other calls do nothing. Calling it
    /// again waits for the same end. Blocks for as long as the transfers take to stop, usually a
    /// few milliseconds: in a Swift task, `await close()` instead.
    @available(*, noasync, message: "use await close()")
    public func close() {
        let closed = DispatchSemaphore(value: 0)
        beginClosing { closed.signal() }
        closed.wait()
    }

    /// Closes the queue as ``close()`` does, suspending instead of blocking until its state
    /// directory is released.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            beginClosing { continuation.resume() }
        }
    }

    /// Stops the running transfers; `whenClosed` runs once the last of them has ended and the
    /// directory is released (at once, when it already is).
    private func beginClosing(then whenClosed: @escaping @Sendable () -> Void) {
        let (actions, isClosed) = state.withLock { shared -> ([DownloadQueueState.Action], Bool) in
            guard shared.phase != .closed else { return ([], true) }
            shared.closeWaiters.append(whenClosed)
            guard shared.phase == .open else { return ([], false) }
            shared.phase = .closing
            return (shared.machine.close(), false)
        }
        if isClosed {
            whenClosed()
            return
        }
        perform(actions)
        finishClosingIfIdle()
    }

    /// Once a closing queue has no transfer left: closes the journal (releasing the directory),
    /// ends the event streams after the events already sent, and wakes every waiter.
    private func finishClosingIfIdle() {
        let woken = state.withLock { shared -> [@Sendable () -> Void] in
            guard shared.phase == .closing, shared.machine.running == 0 else { return [] }
            shared.phase = .closed
            shared.journal?.close()
            shared.journal = nil
            let streams = Array(shared.streams.values)
            shared.streams = [:]
            delivery.async { for continuation in streams { continuation.finish() } }
            let signals = shared.waiters.map(\.signal)
            shared.waiters = []
            defer { shared.closeWaiters = [] }
            return shared.closeWaiters + signals.map { signal in { signal.signal() } }
        }
        for wake in woken { wake() }
    }

    /// Pauses download `id`: a running transfer stops with its bytes kept; it waits for ``resume(_:)``,
    /// in this process or a later one.
    public func pause(_ id: UInt64) { act { $0.pause(id) } }

    /// Resumes a paused download.
    public func resume(_ id: UInt64) { act { $0.resume(id) } }

    /// Cancels download `id` and deletes its partial file.
    public func cancel(_ id: UInt64) { act { $0.cancel(id) } }

    /// Pauses every download.
    public func pauseAll() { act { machine in machine.ids.flatMap { machine.pause($0) } } }

    /// Resumes every paused download (after a full disk, once there is room).
    public func resumeAll() { act { machine in machine.ids.flatMap { machine.resume($0) } } }

    /// Cancels every download that is not finished.
    public func cancelAll() { act { machine in machine.ids.flatMap { machine.cancel($0) } } }

    // MARK: Events

    /// Every event from now on, as an `AsyncSequence`; it ends when the queue is closed or released.
    public var events: AsyncStream<DownloadQueueEvent> {
        let (stream, continuation) = AsyncStream<DownloadQueueEvent>.makeStream()
        let key = UUID()
        let isClosed = state.withLock { shared in
            if shared.phase != .closed { shared.streams[key] = continuation }
            return shared.phase == .closed
        }
        if isClosed { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: key) }
        }
        return stream
    }

    /// Calls `handler` on `queue` with every event from now on.
    public func onEvent(queue: DispatchQueue = .main, _ handler: @escaping @Sendable (DownloadQueueEvent) -> Void) {
        state.withLock { $0.handlers.append((queue, handler)) }
    }

    /// Blocks until download `id` is finished, failed or cancelled, or the queue is closed, and
    /// returns it as it then is. Refused (a
    /// ``RequestError/Code/blockingRefused``) on the main thread and inside a Swift task.
    @available(*, noasync, message: "use events, or onEvent(queue:_:)")
    public func wait(for id: UInt64) throws(RequestError) -> QueuedDownload {
        try block(until: [id])
        guard let download = download(id) else { throw RequestError(.transportFailure, "the queue has no download \(id)") }
        return download
    }

    /// Blocks until every download is finished, failed or cancelled (paused ones too: a full disk
    /// ends the wait), or the queue is closed, and returns them. Refused as ``wait(for:)`` is.
    @available(*, noasync, message: "use events, or onEvent(queue:_:)")
    public func waitForAll() throws(RequestError) -> [QueuedDownload] {
        try block(until: nil)
        return downloads
    }

    private func block(until ids: Set<UInt64>?) throws(RequestError) {
        if let refusal = BlockingClient.Policy().refusal() {
            throw RequestError(.blockingRefused, refusal)
        }
        let signal = DispatchSemaphore(value: 0)
        let isDone = state.withLock { shared in
            if shared.phase == .closed || Self.isSettled(ids, shared.machine) { return true }
            shared.waiters.append((ids, signal))
            return false
        }
        if !isDone { signal.wait() }
    }

    /// Whether `ids` (every download, when `nil`) are final — or, for all, final or paused.
    private static func isSettled(_ ids: Set<UInt64>?, _ machine: DownloadQueueState) -> Bool {
        if let ids { return ids.allSatisfy { machine.entries[$0].map(\.download.state.isFinal) ?? true } }
        return machine.entries.values.allSatisfy { $0.download.state.isFinal || $0.download.state == .paused }
    }

    // MARK: Performing the machine's actions

    /// Asks the machine and performs its actions; nothing once the queue is closed.
    ///
    /// Its records are appended under the lock, with the decision: a state anyone can see is
    /// already in the journal, and ``close()`` never closes the journal between a decision and
    /// its record. They are flushed to the disk after the lock is released — readers of the state
    /// never wait for the disk — and before any other action runs, or this returns.
    private func act(_ decide: (inout DownloadQueueState) -> [DownloadQueueState.Action]) {
        let (actions, appendFailure, flush) = state.withLock {
            shared -> ([DownloadQueueState.Action], RequestError?, QueueJournal.PendingFlush?) in
            guard shared.journal != nil else { return ([], nil, nil) }
            let actions = decide(&shared.machine)
            var failure: RequestError?
            for case .journal(let record) in actions {
                do throws(RequestError) {
                    try shared.journal?.append(record)
                } catch {
                    failure = failure ?? error
                }
            }
            let appended = actions.contains { if case .journal = $0 { true } else { false } }
            return (actions, failure, appended ? shared.journal?.pendingFlush() : nil)
        }
        // A journal that cannot be written pauses nothing, but is reported.
        let flushFailure = flush?.run(sync)
        if let failure = appendFailure ?? flushFailure { emit(.diskFull(failure)) }
        perform(actions)
    }

    private func perform(_ actions: [DownloadQueueState.Action]) {
        for action in actions {
            switch action {
            case .journal:
                continue  // appended by `act`, under the lock, with the decision
            case .start(let id):
                start(id)
            case .retryAfter(let id, let delay, let timer):
                waitToRetry(id, delay, timer: timer)
            case .cancelRetryWait(let id):
                state.withLock { $0.retryWaits.removeValue(forKey: id) }?.item.cancel()
            case .stop(let id):
                let task = state.withLock { $0.tasks[id] }
                task?.cancel(producingResumeData: { _ in })
            case .discard(let resume):
                resume.discard()
            case .emit(.changed(let id)):
                if let download = download(id) { emit(.changed(download)) }
            case .emit(.diskFull(let message)):
                emit(.diskFull(RequestError(.fileIO, message)))
            }
        }
        wakeWaiters()
    }

    /// Starts download `id`'s backoff `timer`: once `delay` has passed, the machine may start it
    /// again. Not started when the machine has ended that wait meanwhile (a pause, a cancel, a
    /// close), so every timer that runs is one a later decision can cancel.
    private func waitToRetry(_ id: UInt64, _ delay: Duration, timer: UInt64) {
        retryWaitDecided(id, delay)
        let item = DispatchWorkItem { [weak self] in
            guard let self else { return }
            state.withLock { shared in
                if shared.retryWaits[id]?.timer == timer { shared.retryWaits[id] = nil }
            }
            act { $0.retryWaitEnded(id, timer: timer) }
        }
        let isCurrent = state.withLock { shared in
            guard shared.phase == .open, shared.machine.entries[id]?.retryTimer == timer else { return false }
            shared.retryWaits[id] = (timer, item)
            return true
        }
        guard isCurrent else { return }
        timers.asyncAfter(deadline: .now() + Self.dispatchInterval(delay), execute: item)
    }

    /// `duration` as Dispatch counts it, in whole nanoseconds (a few centuries at most).
    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let parts = duration.components
        let seconds = min(max(parts.seconds, 0), Int64(Int.max / 1_000_000_000) - 1)
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(max(parts.attoseconds, 0) / 1_000_000_000))
    }

    /// The backoff waits not yet run out or cancelled (a test's check that none is left).
    var pendingRetryWaits: Int { state.withLock { $0.retryWaits.count } }

    private func start(_ id: UInt64) {
        guard let entry = state.withLock({ $0.machine.entries[id] }) else { return }
        let request: Request
        switch requestToSend(for: entry) {
        case .success(let chosen):
            request = chosen
        case .failure(let error):
            act { $0.couldNotStart(id, error) }
            return
        }
        let checkpoint = DownloadCheckpoint(every: options.checkpointInterval) { [weak self] resume in
            self?.act { $0.checkpoint(id, resume) }
        }
        let downloadOptions = DownloadOptions(
            createsIntermediateDirectories: true, expectedSHA256: entry.download.expectedSHA256,
            computesSHA256: options.computesSHA256, keepsPartialFileForResume: true)
        let task = client.download(
            request, to: entry.download.destination, resumingFrom: entry.resume, options: downloadOptions,
            queue: delivery, checkpoint: checkpoint,
            progress: { [weak self] progress in self?.emit(.progress(id: id, progress), onDelivery: true) },
            completion: { [weak self] result in
                guard let self else { return }
                state.withLock { _ = $0.tasks.removeValue(forKey: id) }
                act { $0.ended(id, result) }
                finishClosingIfIdle()
            })
        // A close that began after the machine said start found no task to stop: stop it here.
        let isClosing = state.withLock { shared in
            shared.tasks[id] = task
            return shared.phase != .open
        }
        if isClosing { task.cancel(producingResumeData: { _ in }) }
    }

    /// The request to send for `entry`: the caller's own, while the process that enqueued it lives;
    /// else the program's ``RejoinedRequest``, or the journaled one when that gives none — never a
    /// URL journaled without its query.
    private func requestToSend(for entry: DownloadQueueState.Entry) -> Result<Request, RequestError> {
        if let original = entry.original { return .success(original) }
        if let supplied = rejoinedRequest?(entry.download) {
            do throws(RequestError) {
                try Self.checkIsDownload(supplied)
            } catch {
                return .failure(error)
            }
            return .success(supplied)
        }
        guard !entry.omitsQuery else {
            return .failure(RequestError(
                .invalidURL,
                "download \(entry.download.id) was journaled without its query, and the program gave no request for it (DownloadQueue.RejoinedRequest)",
                url: entry.download.url))
        }
        var fields = HTTPFields()
        for pair in entry.headers where pair.count == 2 {
            if let name = HTTPField.Name(pair[0]) { fields.append(HTTPField(name: name, value: pair[1])) }
        }
        return .success(Request.get(entry.download.url).headers(fields))
    }

    private func emit(_ event: DownloadQueueEvent, onDelivery: Bool = false) {
        let (streams, handlers) = state.withLock { (Array($0.streams.values), $0.handlers) }
        let deliver: @Sendable () -> Void = {
            for continuation in streams { continuation.yield(event) }
        }
        if onDelivery { deliver() } else { delivery.async(execute: deliver) }
        for (queue, handler) in handlers { queue.async { handler(event) } }
    }

    private func wakeWaiters() {
        let ready = state.withLock { shared -> [DispatchSemaphore] in
            let machine = shared.machine
            let (done, waiting) = shared.waiters.partitioned { Self.isSettled($0.ids, machine) }
            shared.waiters = waiting
            return done.map(\.signal)
        }
        for signal in ready { signal.signal() }
    }
}

extension Array {
    /// The elements that satisfy `isIncluded`, and the others, each in order.
    fileprivate func partitioned(_ isIncluded: (Element) -> Bool) -> ([Element], [Element]) {
        var included: [Element] = []
        var excluded: [Element] = []
        for element in self {
            if isIncluded(element) { included.append(element) } else { excluded.append(element) }
        }
        return (included, excluded)
    }
}
