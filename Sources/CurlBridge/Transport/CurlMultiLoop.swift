import Dispatch
import HTTPTypes
import Synchronization
internal import CCurl

/// The one place that drives curl: a multi handle, the serial queue that normally drives it, and
/// the inbox through which every other thread reaches it.
///
/// How it works
/// ------------
/// While transfers are in flight, the loop's *owner* runs turns of it; when none are, the owner
/// lets go and no thread is held:
///
///     turn:
///         curl_multi_poll         (if anything is in flight) sleep until a socket is ready,
///                                 curl's timer, our nearest idle deadline, or curl_multi_wakeup
///         take the inbox          ─┐ under the inbox lock; if nothing is in flight and nothing
///         nothing to do? let go   ─┘ came, mark the loop idle (closed, if shutting down) and stop
///         apply the commands      start (on a pooled easy handle), cancel, pause, resume, cancel all
///         curl_multi_perform      curl does I/O and calls our write/read/header callbacks
///         curl_multi_info_read    finished transfers complete, exactly once each
///         expire idle transfers
///
/// The owner is normally the serial `queue`. A blocking caller that finds the loop idle becomes
/// the owner itself and runs turns on its own thread until its transfer completes — as curl's
/// `curl_easy_perform` is a loop over the multi engine — saving two thread handoffs per request;
/// if other transfers are in flight by then, it hands the loop to the queue. An async or callback
/// caller that finds it idle runs one turn (its transfer joins curl and is sent; an idle loop's
/// first turn does not poll, so it never waits) and then hands the loop to the queue.
///
/// Other threads never touch curl. `submit` appends a command under the lock and either wakes
/// the running loop (`curl_multi_wakeup`, called under the same lock so it can never race the
/// multi's cleanup) or, when the loop is idle, marks it running and dispatches it. Because
/// "running" is decided under the lock that guards the inbox, no command is ever stranded. One
/// wake-up serves every command queued before the owner takes them.
///
/// `@unchecked Sendable`: the multi handle, the transfer table and every easy handle are touched
/// only by the loop's owner (and by `deinit`, when no transfer can exist). There is at most one
/// owner: ownership is taken only by flipping `Inbox.isRunning` from false to true under the
/// lock, and is given up only by flipping it back under the lock (or handed to `queue` without
/// ever being released), so each owner's accesses happen-after the previous owner's.
final class CurlMultiLoop: @unchecked Sendable {
    /// A request to the loop from any thread.
    enum Command: Sendable {
        case start(id: UInt64, request: PreparedRequest, events: TransferEvents)
        case cancel(UInt64)
        case pauseReceiving(UInt64)
        case resumeReceiving(UInt64)
        case resumeSending(UInt64)
        case cancelAll
        /// The request `id` waits between attempts (see ``WaitingRequest``).
        case suspend(id: UInt64, WaitingRequest)
        /// The wait of request `id` is over: run `next` on the loop, unless the request was
        /// cancelled (or failed by shutdown) meanwhile.
        case wake(id: UInt64, next: @Sendable () -> Void)
        /// A stub worked out its answer to request `id` (a stubbed transport's loop only).
        case stubAnswered(id: UInt64, StubExchange.Answer)
    }

    /// A request between attempts — running its adapters or retriers, or backing off — that has
    /// no curl transfer but can still be cancelled by its handle, and fails when the transport
    /// shuts down.
    struct WaitingRequest: Sendable {
        /// For the error's attribution.
        let method: HTTPRequest.Method
        let url: String
        /// Ends the wait with this error (cancelled, or shut down), exactly once, on the loop.
        let end: @Sendable (RequestError) -> Void
    }

    /// The loop's lifecycle.
    private enum State {
        /// Accepting requests.
        case open
        /// Finishing in-flight transfers, refusing new ones.
        case shuttingDown
        /// The multi handle is gone.
        case closed
    }

    /// What other threads share with the loop.
    private struct Inbox: ~Copyable {
        var commands: [Command] = []
        var isRunning = false
        /// Whether a `curl_multi_wakeup` was sent since the owner last took the commands: one
        /// interrupts the poll for every command queued meanwhile, so a burst of submissions (a
        /// completion per request, at many requests in flight) costs one system call, not one each.
        var isWakeupPending = false
        var state = State.open
        var onClosed: [@Sendable () -> Void] = []
    }

    /// The queue that owns the loop whenever no blocking caller drives it.
    let queue: DispatchQueue
    /// The `CURLM *`.
    private let multi: UnsafeMutableRawPointer
    /// Options applied to each easy handle.
    private let easyOptions: CurlEasyOptions
    /// Commands and the running flag, shared with other threads. A ``PosixLock`` rather than a
    /// `Mutex`, so that ThreadSanitizer sees its ordering (see there).
    private let inbox = PosixLock(Inbox())
    /// Source of transfer numbers, shared by every loop in the process, so that a request id
    /// (what monitors, interceptors and log lines see) is unique across transports.
    private static let nextID = Atomic<UInt64>(1)
    /// Transfers added to curl and not yet finished, readable from any thread.
    private let inFlight = Atomic<Int>(0)

    // Queue-confined state (see the type's comment).
    /// Transfers in flight, by number; holding them here keeps curl's callback pointers valid.
    private var transfers: [UInt64: CurlTransfer] = [:]
    /// What answers instead of curl, when the transport is stubbed.
    private let stubs: StubExchanges?
    /// Easy handles between transfers.
    private let handles = CurlEasyHandlePool(capacity: CurlMultiLoop.idleHandleCapacity)
    /// Transfers sent again after curl failed them on a closing HTTP/2 session (see
    /// ``CurlTransfer/failedOnClosingSession(_:)``): at most once per attempt.
    private var resentAfterClosingSession: Set<UInt64> = []
    /// Requests between attempts, by number.
    private var waiting: [UInt64: WaitingRequest] = [:]
    /// The earliest moment an idle timeout could expire, in `MonotonicClock` nanoseconds.
    private var nextIdleCheck: UInt64?

    /// How many reset easy handles a loop keeps for its next transfers while busy: enough for a
    /// thousand transfers in flight to recycle theirs, rather than free and allocate one each.
    static let idleHandleCapacity = 1024
    /// How many it keeps once nothing is in flight.
    static let restingHandleCapacity = 16

    /// How many transfers began on a reused easy handle (a test diagnostic).
    var reusedHandleCount: Int { handles.reuseCount }

    /// Marks the loops' queues, so the blocking guard can refuse to wait on one of them.
    static let queueKey = DispatchSpecificKey<Bool>()

    /// Creates a loop with its multi handle; its transfers use `cookieShare`, if any, as their jar.
    ///
    /// - Throws: ``RequestError`` if curl cannot be initialised or make a multi handle.
    /// When `stub` is given, it answers every request instead of curl (see ``StubExchanges``).
    init(
        label: String, configuration: Configuration, cookieShare: CurlCookieShare?, stub: StubExchanges.Handler? = nil
    ) throws(RequestError) {
        try CurlGlobal.ensureInitialized()
        guard let multi = curl_multi_init() else {
            throw RequestError(.transportFailure, "curl_multi_init returned no handle")
        }
        self.multi = multi
        self.stubs = stub.map(StubExchanges.init)
        self.easyOptions = CurlEasyOptions(configuration, cookieShare: cookieShare)
        self.queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.queueKey, value: true)
        let limits = configuration.connectionLimits
        ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, limits.total)
        ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, limits.perHost)
        if limits.idleCached > 0 {
            ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, limits.idleCached)
        }
    }

    deinit {
        // `run()` retains the loop, so a loop being released is idle and holds no transfer.
        let isClosed = inbox.withLock { $0.state == .closed }
        if !isClosed { curl_multi_cleanup(multi) }
    }

    /// How many transfers are in curl's hands (or a stub's) right now.
    var inFlightCount: Int { inFlight.load(ordering: .relaxed) + (stubs?.count ?? 0) }

    /// Whether no transfer is in flight (on the loop).
    private var isIdle: Bool { transfers.isEmpty && stubs?.isEmpty != false }

    /// A new transfer number.
    func makeTransferID() -> UInt64 {
        Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Hands `command` to the loop, from any thread.
    ///
    /// - Returns: `false` when the loop no longer accepts it: a start after shutdown began, or
    ///   anything after the loop closed.
    @discardableResult
    func submit(_ command: Command) -> Bool {
        guard let owns = enqueue(command) else { return false }
        if owns { queue.async { self.run() } }
        return true
    }

    /// Like ``submit(_:)``, but when the loop is idle the calling thread becomes its owner and
    /// drives it until `isFinished()` — normally until the transfer `command` starts completes.
    ///
    /// - Returns: `false` when the loop no longer accepts the command.
    ///
    /// - Parameter enqueued: Runs once the command is in the inbox and before this thread drives,
    ///   so commands it submits (a cancel) follow the start.
    func submitAndDrive(_ command: Command, enqueued: () -> Void, until isFinished: () -> Bool) -> Bool {
        guard let owns = enqueue(command) else { return false }
        enqueued()
        if owns { drive(until: isFinished) }
        return true
    }

    /// Appends `command` to the inbox and says who will run it: `nil` if refused, `false` if the
    /// loop's current owner (woken up now), `true` if the caller, who has just taken ownership.
    private func enqueue(_ command: Command) -> Bool? {
        inbox.withLock { inbox in
            switch (inbox.state, command) {
            case (.closed, _), (.shuttingDown, .start), (.shuttingDown, .suspend): return nil
            default: break
            }
            inbox.commands.append(command)
            if inbox.isRunning {
                if !inbox.isWakeupPending {
                    curl_multi_wakeup(multi)
                    inbox.isWakeupPending = true
                }
                return false
            }
            inbox.isRunning = true
            return true
        }
    }

    /// Stops accepting new transfers, lets those in flight finish, then releases the multi handle
    /// and calls `onClosed` (at once, if the loop is already closed).
    func shutdown(onClosed: @escaping @Sendable () -> Void) {
        let action: (dispatch: Bool, alreadyClosed: Bool) = inbox.withLock { inbox in
            if inbox.state == .closed { return (false, true) }
            inbox.state = .shuttingDown
            inbox.onClosed.append(onClosed)
            if inbox.isRunning {
                curl_multi_wakeup(multi)
                return (false, false)
            }
            inbox.isRunning = true
            return (true, false)
        }
        if action.alreadyClosed { onClosed() }
        if action.dispatch { queue.async { self.run() } }
    }

    // MARK: The loop (run by its owner)

    /// The queue's way of owning the loop: turns until it stops.
    private func run() {
        while turn() {}
    }

    /// A caller's way of owning the loop: turns until `isFinished()`, then lets go — or, when
    /// other transfers or commands remain, hands the loop to the queue.
    private func drive(until isFinished: () -> Bool) {
        while turn() {
            guard isFinished() else { continue }
            let isIdle = self.isIdle
            let handOver = inbox.withLock { inbox in
                if isIdle, inbox.commands.isEmpty, inbox.state == .open {
                    inbox.isRunning = false
                    return false
                }
                return true
            }
            if handOver { queue.async { self.run() } }
            return
        }
    }

    /// One turn of the loop (see the type's comment); `false` once the loop has stopped.
    private func turn() -> Bool {
        if !isIdle {
            let polled = curl_multi_poll(multi, nil, 0, pollTimeoutMilliseconds(), nil)
            if polled != CURLM_OK { failAll(polled, during: "curl_multi_poll") }
        }
        guard let commands = takeCommandsOrStop() else { return false }
        for command in commands { apply(command) }
        var running: Int32 = 0
        let performed = curl_multi_perform(multi, &running)
        if performed != CURLM_OK { failAll(performed, during: "curl_multi_perform") }
        completeFinishedTransfers()
        expireIdleTransfers()
        return true
    }

    /// What the loop does after looking at the inbox.
    private enum NextStep {
        /// Apply these commands (possibly none), end waiting requests if shutting down, and drive curl.
        case drive([Command], isShuttingDown: Bool)
        /// Nothing in flight, nothing asked: the loop is marked idle.
        case stop
        /// Nothing in flight during shutdown: the loop is marked closed; release curl, then notify.
        case close([@Sendable () -> Void])
    }

    /// The pending commands; or `nil` — after marking the loop idle, and closing it if it was
    /// shutting down — when there are none and nothing is in flight.
    private func takeCommandsOrStop() -> [Command]? {
        let isIdle = self.isIdle
        let hasWaiting = !waiting.isEmpty
        let next: NextStep = inbox.withLock { inbox in
            inbox.isWakeupPending = false
            let isShuttingDown = inbox.state == .shuttingDown
            if !inbox.commands.isEmpty {
                defer { inbox.commands.removeAll(keepingCapacity: true) }
                return .drive(inbox.commands, isShuttingDown: isShuttingDown)
            }
            guard isIdle, !(isShuttingDown && hasWaiting) else { return .drive([], isShuttingDown: isShuttingDown) }
            // Requests waiting between attempts hold no thread: their timers or tasks wake the loop.
            inbox.isRunning = false
            guard isShuttingDown else { return .stop }
            // Released under the lock, so a later `shutdown` that sees `.closed` knows curl is gone.
            curl_multi_cleanup(multi)
            inbox.state = .closed
            defer { inbox.onClosed = [] }
            return .close(inbox.onClosed)
        }
        switch next {
        case .drive(let commands, let isShuttingDown):
            if isShuttingDown, !waiting.isEmpty { endWaiting(with: .transportShutDown, "the transport shut down while the request waited to be retried") }
            return commands
        case .stop:
            handles.trim(to: Self.restingHandleCapacity)
            return nil
        case .close(let onClosed):
            handles.drain()
            for notify in onClosed { notify() }
            return nil
        }
    }

    private func apply(_ command: Command) {
        switch command {
        case .start(let id, let request, let events):
            begin(id: id, request: request, events: events)
        case .cancel(let id):
            if let transfer = transfers[id] {
                finish(transfer, .failure(RequestError(
                    .cancelled, "the request was cancelled", method: transfer.request.method, url: transfer.request.url)))
            } else if let stubs, stubs.fail(id, with: { RequestError(.cancelled, "the request was cancelled", method: $0.method, url: $0.url) }) {
                return
            } else if let request = waiting.removeValue(forKey: id) {
                request.end(RequestError(.cancelled, "the request was cancelled", method: request.method, url: request.url))
            }
        case .pauseReceiving(let id):
            transfers[id]?.pauseReceiving()
            stubs?.pauseReceiving(id)
        case .resumeReceiving(let id):
            stubs?.resumeReceiving(id)
            guard let transfer = transfers[id] else { return }
            transfer.resumeReceiving()
            scheduleIdleCheck(for: transfer)
        case .resumeSending(let id):
            guard let transfer = transfers[id] else { return }
            transfer.resumeSending()
            scheduleIdleCheck(for: transfer)
        case .cancelAll:
            for transfer in transfers.values {
                finish(transfer, .failure(RequestError(
                    .cancelled, "all requests were cancelled", method: transfer.request.method, url: transfer.request.url)))
            }
            stubs?.failAll { RequestError(.cancelled, "all requests were cancelled", method: $0.method, url: $0.url) }
            endWaiting(with: .cancelled, "all requests were cancelled")
        case .suspend(let id, let request):
            suspend(id: id, request)
        case .wake(let id, let next):
            if waiting.removeValue(forKey: id) != nil { next() }
        case .stubAnswered(let id, let answer):
            stubs?.receive(answer, for: id)
        }
    }

    /// Records that request `id` waits between attempts. Call on the loop (inside an attempt's
    /// `onComplete`), or submit ``Command/suspend(id:_:)`` from elsewhere.
    func suspend(id: UInt64, _ request: WaitingRequest) {
        waiting[id] = request
    }

    /// Ends every waiting request with an error of `code`.
    private func endWaiting(with code: RequestError.Code, _ message: String) {
        let ended = waiting
        waiting.removeAll()
        for request in ended.values {
            request.end(RequestError(code, message, method: request.method, url: request.url))
        }
    }

    /// Starts the next attempt of a request under its transfer's id, so that the caller's handle
    /// now reaches it. Call only from inside the previous attempt's `onComplete` (on the loop):
    /// the attempt is in curl before any command queued meanwhile, such as a cancel, is applied.
    func startNextAttempt(id: UInt64, request: PreparedRequest, events: TransferEvents) {
        begin(id: id, request: request, events: events)
    }

    /// Creates the transfer's easy handle and adds it to the multi handle (on a stubbed transport,
    /// hands the request to its stub instead).
    private func begin(id: UInt64, request: PreparedRequest, events: TransferEvents) {
        if let stubs {
            stubs.begin(id: id, request: request, events: events) { self.submit(.stubAnswered(id: id, $0)) }
            return
        }
        let transfer: CurlTransfer
        do {
            transfer = try makeTransfer(id: id, request: request, events: events)
        } catch {
            events.onComplete(.failure(error.attributed(to: request.method, url: request.url)))
            return
        }
        let added = curl_multi_add_handle(multi, transfer.easy.raw)
        guard added == CURLM_OK else {
            handles.recycle(transfer.easy, reusable: false)
            events.onComplete(.failure(multiError(added, during: "curl_multi_add_handle")
                .attributed(to: request.method, url: request.url)))
            return
        }
        transfers[id] = transfer
        inFlight.add(1, ordering: .relaxed)
        scheduleIdleCheck(for: transfer)
    }

    /// A transfer on a pooled easy handle, its body stream started; the handle goes back to the
    /// pool when either step fails.
    private func makeTransfer(id: UInt64, request: PreparedRequest, events: TransferEvents) throws(RequestError) -> CurlTransfer {
        let easy = try handles.take()
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(id: id, request: request, events: events, options: easyOptions, easy: easy)
        } catch {
            handles.recycle(easy)
            throw error
        }
        do {
            try transfer.startBodyStream { [weak self] in self?.submit(.resumeSending(id)) }
        } catch {
            transfer.closeBody()
            handles.recycle(easy)
            throw error
        }
        return transfer
    }

    /// Removes the transfer from curl and reports its outcome: the only way a transfer ends.
    private func finish(_ transfer: CurlTransfer, _ outcome: Result<Response, RequestError>) {
        transfer.reportFinalProgress()
        release(transfer, reusingHandle: transfer.leavesHandleReusable)
        if !resentAfterClosingSession.isEmpty { resentAfterClosingSession.remove(transfer.id) }
        transfer.events.onComplete(outcome)
    }

    /// Starts `transfer`'s request again, on a new handle (and so a new connection), as curl does
    /// for the other streams of a session that a GOAWAY closed; its events see one transfer.
    private func sendAgain(_ transfer: CurlTransfer) {
        release(transfer, reusingHandle: false)
        begin(id: transfer.id, request: transfer.request, events: transfer.events)
        if transfers[transfer.id] == nil { resentAfterClosingSession.remove(transfer.id) }  // it completed at once
    }

    /// Takes `transfer` out of curl and the table, and gives its handle back to the pool.
    private func release(_ transfer: CurlTransfer, reusingHandle reusable: Bool) {
        curl_multi_remove_handle(multi, transfer.easy.raw)
        transfer.closeBody()
        handles.recycle(transfer.easy, reusable: reusable)
        transfers[transfer.id] = nil
        inFlight.subtract(1, ordering: .relaxed)
    }

    private func completeFinishedTransfers() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            guard ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context) == CURLE_OK, let context else { continue }
            let transfer = CurlTransfer.from(context)
            if transfer.failedOnClosingSession(result), resentAfterClosingSession.insert(transfer.id).inserted {
                sendAgain(transfer)
            } else {
                finish(transfer, transfer.outcome(of: result))
            }
        }
    }

    // MARK: Idle timeouts

    /// Makes sure the loop looks at `transfer` no later than its idle deadline.
    private func scheduleIdleCheck(for transfer: CurlTransfer) {
        guard let idle = transfer.request.idleTimeoutNanoseconds else { return }
        let deadline = transfer.idleSince &+ idle
        nextIdleCheck = min(nextIdleCheck ?? deadline, deadline)
    }

    /// Fails transfers that moved no byte for their idle timeout. Activity only pushes deadlines
    /// later, so the table is scanned only when the earliest possible deadline has passed.
    private func expireIdleTransfers() {
        guard let check = nextIdleCheck else { return }
        let now = MonotonicClock.now
        guard now >= check else { return }
        nextIdleCheck = nil
        for transfer in transfers.values where !transfer.isPaused {
            guard let idle = transfer.request.idleTimeoutNanoseconds else { continue }
            if !transfer.hasConnected {
                // Waiting for a connection or connecting: the idle clock starts once connected.
                transfer.noteActivity()
                transfer.waitedForConnection = true
                scheduleIdleCheck(for: transfer)
            } else if transfer.waitedForConnection {
                // Connected since the last check, after waiting for a connection: start the clock
                // now. curl's connection moment of a transfer it queued for a free connection does
                // not count from when the wait ended, so it cannot be trusted here; starting late
                // only makes the limit more lenient, once.
                transfer.waitedForConnection = false
                transfer.noteActivity()
                scheduleIdleCheck(for: transfer)
            } else if now - min(now, transfer.idleSince) >= idle {
                finish(transfer, .failure(RequestError(
                    .idleTimedOut, "no byte was sent or received for \(idle / 1_000_000) ms",
                    method: transfer.request.method, url: transfer.request.url)))
            } else {
                scheduleIdleCheck(for: transfer)
            }
        }
    }

    /// How long `curl_multi_poll` may sleep: until the nearest idle deadline, at most a second
    /// (curl shortens it further for its own timers).
    private func pollTimeoutMilliseconds() -> Int32 {
        guard let check = nextIdleCheck else { return 1000 }
        let now = MonotonicClock.now
        guard check > now else { return 0 }
        return Int32(min(1000, (check - now + 999_999) / 1_000_000))
    }

    // MARK: Failures of the multi handle itself

    private func multiError(_ code: CURLMcode, during call: String) -> RequestError {
        RequestError(.transportFailure, "\(call) failed: \(String(cString: curl_multi_strerror(code)))", curlCode: Int(code.rawValue))
    }

    /// Fails every transfer in flight after the multi handle itself reported an error.
    private func failAll(_ code: CURLMcode, during call: String) {
        let error = multiError(code, during: call)
        for transfer in transfers.values {
            finish(transfer, .failure(error.attributed(to: transfer.request.method, url: transfer.request.url)))
        }
    }
}
