import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CCurl

/// The one place that drives curl: a multi handle, the serial queue that normally drives it, and
/// the inbox through which every other thread reaches it. Mechanism only — what runs on it
/// (requests, their engines and decisions) is its ``delegate``'s.
///
/// How it works
/// ------------
/// While anything is in flight, the loop's *owner* runs turns of it; when nothing is, the owner
/// lets go and no thread is held:
///
///     turn:
///         curl_multi_poll         (if busy, and the owner submitted itself nothing) sleep until
///                                 a socket is ready, curl's timer, the delegate's next
///                                 deadline, or curl_multi_wakeup
///         take the inbox          ─┐ under the inbox lock; if nothing is in flight and nothing
///         nothing to do? let go   ─┘ came, mark the loop idle (closed, if shutting down) and stop
///         run the work            closures submitted from any thread, in order, then (a few
///                                 rounds) what that work submitted to the owner
///         curl_multi_perform      curl does I/O and calls the transfers' callbacks
///         curl_multi_info_read    each finished transfer goes to its engine
///         end the turn            the delegate announces the stream chunks the turn gathered,
///                                 expires what was due when the inbox was taken (a cancel that
///                                 came first wins) and names its next deadline
///
/// The owner is normally the serial `queue`. A blocking caller that finds the loop idle becomes
/// the owner itself and runs turns on its own thread until its request completes — as curl's
/// `curl_easy_perform` is a loop over the multi engine — saving two thread handoffs per request;
/// if other work is in flight by then, it hands the loop to the queue. An async or callback
/// caller that finds it idle runs one turn (its transfer joins curl and is sent; an idle loop's
/// first turn does not poll, so it never waits) and then hands the loop to the queue.
///
/// Other threads never touch curl. `submit` appends work under the lock and either wakes the
/// running loop (`curl_multi_wakeup`, called under the same lock so it can never race the multi's
/// cleanup) or, when the loop is idle, marks it running and dispatches it. Because "running" is
/// decided under the lock that guards the inbox, no work is ever stranded. One wake-up serves
/// every submission queued before the owner takes them. Work the owner submits during a turn
/// (a task resumed on the ``TransportExecutor`` starting its next request, a cache play) needs
/// no wake-up: the owner notes it, and takes it in the same turn when the turn's work submitted
/// it, otherwise in the next turn, which does not poll.
///
/// There is at most one owner: ownership is taken only by flipping `Inbox.isRunning` from false to
/// true under the lock, and given up only by flipping it back under the lock — the owner's last
/// access to loop state — or handed to `queue` without ever being released, so each owner's
/// accesses happen-after the previous owner's.
///
/// `Sendable` with no check of its own: what other threads share is behind ``PosixLock``, the
/// owner's state (the delegate, the next deadline) is in a ``LoopBound``, and the multi handle is
/// a ``CurlPointer`` that only the owner uses (and `curl_multi_wakeup`, which curl allows from any
/// thread, under the inbox lock).
final class CurlMultiLoop: RequestLoop, Sendable {

    /// The loop's lifecycle.
    private enum State {
        /// Accepting requests.
        case open
        /// Finishing what is in flight, refusing new requests.
        case shuttingDown
        /// The multi handle is gone.
        case closed
    }

    /// One piece of submitted work. A struct around the closure, so that a list of them keeps the
    /// closure as it came: an array of bare closures stores each behind a reabstraction thunk,
    /// which allocates a context for every submission.
    private struct Item {
        let run: Work
        /// Whether it is a task's job (``TransportExecutor``): run by the queue only, never on a
        /// blocking caller's thread.
        var isTaskJob = false
    }

    /// What other threads share with the loop.
    private struct Inbox: ~Copyable {
        var work: [Item] = []
        var isRunning = false
        /// Whether a `curl_multi_wakeup` was sent since the owner last took the work: one
        /// interrupts the poll for every submission queued meanwhile.
        var isWakeupPending = false
        /// The thread running turns, from its first taking of the inbox until it lets go or hands
        /// the loop over (`nil` in between): its own submissions need no wake-up.
        var owner: pthread_t?
        var state = State.open
        var onClosed: [@Sendable () -> Void] = []
    }

    /// What only the loop's owner touches.
    private final class OwnerState {
        /// What runs on the loop; set once, before the first submission.
        var delegate: (any RequestLoopDelegate)?
        /// The engine whose transfers curl reports finished: it names itself when made (a stubbed
        /// transport has none). Weak: the delegate owns it (through the caching engine, with a cache).
        weak var engine: CurlEngine?
        /// The next moment the delegate must look again, in `MonotonicClock` nanoseconds.
        var nextDeadline: UInt64?
        /// Whether the owner submitted work to itself since it last took the inbox: the next
        /// turn must not sleep in `curl_multi_poll`, which no wake-up would interrupt.
        var hasOwnWork = false
        /// An empty list with room, swapped with the inbox's when a turn takes its work, so that
        /// taking the work does not make a new list for the inbox every turn (owner-only: no
        /// run-time exclusivity check).
        @exclusivity(unchecked) var spareWork: [Item] = []
        /// The moment curl's callbacks note activity at, read once per phase of a turn.
        let callbackClock = CallbackClock()
    }

    /// The queue that owns the loop whenever no blocking caller drives it.
    let queue: DispatchQueue
    /// The `CURLM *`.
    private let multiHandle: CurlPointer<UnsafeMutableRawPointer>
    /// Work and the running flag, shared with other threads. A ``PosixLock`` rather than a
    /// `Mutex`, so that ThreadSanitizer sees its ordering (see there).
    private let inbox = PosixLock(Inbox())
    /// The owner's state, set up by the loop's maker before the first submission.
    private let owned = LoopBound(owning: OwnerState())

    /// Creates a loop with its multi handle, limited to `limits`.
    ///
    /// - Throws: ``RequestError`` if curl cannot be initialised or make a multi handle.
    init(label: String, limits: ConnectionLimits) throws(RequestError) {
        try CurlGlobal.ensureInitialized()
        guard let multi = curl_multi_init() else {
            throw RequestError(.transportFailure, "curl_multi_init returned no handle")
        }
        multiHandle = CurlPointer(multi)
        self.queue = DispatchQueue(label: label)
        queue.setSpecific(key: GuardedQueue.key, value: .transportLoop)  // the blocking guard refuses to wait here
        ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, limits.total)
        ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, limits.perHost)
        if limits.idleCached > 0 {
            ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, limits.idleCached)
        }
    }

    /// The `CURLM *`.
    private var multi: UnsafeMutableRawPointer { multiHandle.raw }

    /// The owner's state: only on the owner, or by the maker before the first submission.
    private var state: OwnerState { owned.open().unsafelyUnwrapped }

    /// What runs on the loop; set once by its maker, before the first submission.
    var delegate: any RequestLoopDelegate {
        get { state.delegate! }
        set { state.delegate = newValue }
    }

    /// The engine whose transfers curl reports finished; it names itself when made, before the
    /// first submission.
    var engine: CurlEngine? {
        get { state.engine }
        set { state.engine = newValue }
    }

    /// The moment curl's callbacks in this loop note activity at (see ``CallbackClock``): taken by
    /// the engine when made, before the first submission.
    var callbackClock: CallbackClock { state.callbackClock }

    deinit {
        // Running retains the loop, so a loop being released is idle and holds no transfer.
        let isClosed = inbox.withLock { $0.state == .closed }
        if !isClosed { curl_multi_cleanup(multi) }
    }

    // MARK: From any thread

    /// Hands `work` to the loop's owner.
    ///
    /// - Parameter isNewRequest: Whether the work starts a request: refused once shutdown began.
    /// - Returns: `false` when the loop no longer accepts it.
    @discardableResult
    func submit(isNewRequest: Bool, _ work: @escaping Work) -> Bool {
        submit(Item(run: work), isNewRequest: isNewRequest)
    }

    /// Hands a task's job (``TransportExecutor``) to the loop: run with the turn's other work when
    /// the queue owns the loop, and on the queue beside the turns while a blocking caller drives
    /// it (user code never runs inside another caller's blocking call).
    ///
    /// - Returns: `false` when the loop no longer accepts work (it has closed).
    func submitTaskJob(_ job: @escaping Work) -> Bool {
        submit(Item(run: job, isTaskJob: true), isNewRequest: false)
    }

    /// Hands `item` to the loop's owner, dispatching the queue when the caller took ownership;
    /// `false` when the loop no longer accepts it.
    private func submit(_ item: Item, isNewRequest: Bool) -> Bool {
        guard let owns = enqueue(item, isNewRequest: isNewRequest) else { return false }
        if owns { queue.async { self.run() } }
        return true
    }

    /// Like ``submit(isNewRequest:_:)`` for a new request, but when the loop is idle the calling
    /// thread becomes its owner and drives it until `isFinished()`.
    ///
    /// - Parameter enqueued: Runs once the work is in the inbox and before this thread drives, so
    ///   work it submits (a cancel) follows.
    /// - Returns: `false` when the loop no longer accepts new requests.
    func submitAndDrive(_ work: @escaping Work, enqueued: () -> Void, until isFinished: () -> Bool) -> Bool {
        guard let owns = enqueue(Item(run: work), isNewRequest: true) else { return false }
        enqueued()
        if owns { drive(until: isFinished) }
        return true
    }

    /// Appends `item` to the inbox and says who will run it: `nil` if refused, `false` if the
    /// loop's current owner (woken up now), `true` if the caller, who has just taken ownership.
    private func enqueue(_ item: Item, isNewRequest: Bool) -> Bool? {
        inbox.withLock { inbox in
            switch inbox.state {
            case .closed: return nil
            case .shuttingDown where isNewRequest: return nil
            default: break
            }
            inbox.work.append(item)
            return take(&inbox)
        }
    }

    /// Under the lock: wakes the running owner (`false`), or makes the caller the owner (`true`).
    private func take(_ inbox: inout Inbox) -> Bool {
        if inbox.isRunning {
            if let owner = inbox.owner, pthread_equal(owner, pthread_self()) != 0 {
                state.hasOwnWork = true  // this thread is the owner: its next turn takes the work
                return false
            }
            if !inbox.isWakeupPending {
                curl_multi_wakeup(multi)
                inbox.isWakeupPending = true
            }
            return false
        }
        inbox.isRunning = true
        return true
    }

    /// Stops accepting new requests; once nothing is in flight, releases the multi handle and
    /// calls `onClosed` (at once, if the loop is already closed).
    ///
    /// The delegate hears of it in order: after the work submitted before this call (a
    /// `cancelAll` just before a shutdown cancels what it finds first).
    func shutdown(onClosed: @escaping @Sendable () -> Void) {
        let owns: Bool? = inbox.withLock { inbox in
            if inbox.state == .closed { return nil }
            if inbox.state == .open { inbox.work.append(Item { [unowned self] in delegate.shutdownDidBegin() }) }
            inbox.state = .shuttingDown
            inbox.onClosed.append(onClosed)
            return take(&inbox)
        }
        guard let owns else { return onClosed() }
        if owns { queue.async { self.run() } }
    }

    // MARK: The owner's

    /// Adds an easy handle to curl.
    func add(_ easy: UnsafeMutableRawPointer) -> CURLMcode { curl_multi_add_handle(multi, easy) }

    /// Takes an easy handle out of curl.
    func remove(_ easy: UnsafeMutableRawPointer) { curl_multi_remove_handle(multi, easy) }

    /// The queue's way of owning the loop: turns until it stops.
    private func run() {
        while turn(onQueue: true) {}
    }

    /// A caller's way of owning the loop: turns until `isFinished()`, then lets go — or, when
    /// other work remains, hands the loop to the queue.
    private func drive(until isFinished: () -> Bool) {
        while turn(onQueue: false) {
            guard isFinished() else { continue }
            let isBusy = delegate.isBusy
            let handOver = inbox.withLock { inbox in
                inbox.owner = nil
                if !isBusy, inbox.work.isEmpty, inbox.state == .open {
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
    ///
    /// - Parameter onQueue: Whether the queue owns the loop (rather than a blocking caller's thread).
    private func turn(onQueue: Bool) -> Bool {
        let state = self.state
        let delegate = state.delegate!
        if delegate.isBusy, !state.hasOwnWork {
            let polled = curl_multi_poll(multi, nil, 0, pollTimeoutMilliseconds(until: state.nextDeadline), nil)
            if polled != CURLM_OK { delegate.loopDidFail(multiError(polled, during: "curl_multi_poll")) }
        }
        // Deadlines are judged as of a moment before the inbox is taken: work submitted by then
        // (a cancel made before a deadline passed) runs first, however long this turn takes.
        let now = MonotonicClock.now
        state.callbackClock.begin(at: now)
        guard var work = takeWorkOrStop(delegate, state) else { return false }
        // Work that the work submits to the owner (a task resumed on the transport's executor that
        // starts its next request) runs in this turn too, before curl is driven: a few rounds, so
        // that work which keeps submitting work cannot hold curl back.
        for round in 1...Self.workRounds {
            for item in work {
                if item.isTaskJob, !onQueue {
                    queue.async(execute: item.run)
                } else {
                    item.run()
                }
            }
            work.removeAll(keepingCapacity: true)
            swap(&work, &state.spareWork)  // the emptied list becomes the spare, shared with no one
            guard state.hasOwnWork, round < Self.workRounds else { break }
            work = takeOwnWork(state)
        }
        var running: Int32 = 0
        state.callbackClock.forget()
        let performed = curl_multi_perform(multi, &running)
        if performed != CURLM_OK { delegate.loopDidFail(multiError(performed, during: "curl_multi_perform")) }
        readFinishedTransfers(state)
        state.nextDeadline = delegate.turnDidEnd(now: now)
        return true
    }

    /// How many times a turn takes the work its own work submitted.
    private static let workRounds = 4

    /// The work in the inbox, which the owner's own work submitted (and any other thread's that
    /// came meanwhile), for the inbox's spare list in exchange.
    private func takeOwnWork(_ state: OwnerState) -> [Item] {
        inbox.withLock { inbox in
            state.hasOwnWork = false
            swap(&inbox.work, &state.spareWork)
        }
        var work: [Item] = []
        swap(&work, &state.spareWork)
        return work
    }

    /// What the owner does after looking at the inbox.
    private enum NextStep {
        /// Run the work taken (possibly none) and drive curl.
        case drive
        /// Nothing in flight, nothing asked: the loop is marked idle.
        case stop
        /// Nothing left during shutdown: the loop is marked closed and curl released; notify.
        case close([@Sendable () -> Void])
    }

    /// The pending work, for which the inbox takes `state`'s spare list in exchange; or `nil` —
    /// after marking the loop idle, and closing it if shutting down with nothing left — when there
    /// is none and nothing is in flight. `state` is touched only while this thread still owns the
    /// loop: inside the lock before letting go, or on the way to driving.
    private func takeWorkOrStop(_ delegate: any RequestLoopDelegate, _ state: OwnerState) -> [Item]? {
        let isBusy = delegate.isBusy
        let isDrained = !isBusy && delegate.isDrained
        if !isBusy { delegate.loopWillRest() }  // before letting go: the delegate's state is ours until then
        let next: NextStep = inbox.withLock { inbox in
            inbox.isWakeupPending = false
            state.hasOwnWork = false
            inbox.owner = pthread_self()  // cleared below if this thread lets go
            let isShuttingDown = inbox.state == .shuttingDown
            if !inbox.work.isEmpty {
                swap(&inbox.work, &state.spareWork)
                return .drive
            }
            guard !isBusy, !isShuttingDown || isDrained else { return .drive }
            // Requests waiting between attempts hold no thread: their timers or tasks submit work.
            // The last access to owner state is above: once `isRunning` is false, another thread
            // may own the loop.
            inbox.isRunning = false
            inbox.owner = nil
            guard isShuttingDown else { return .stop }
            // Released under the lock, so a later `shutdown` that sees `.closed` knows curl is gone.
            curl_multi_cleanup(multi)
            inbox.state = .closed
            defer { inbox.onClosed = [] }
            return .close(inbox.onClosed)
        }
        switch next {
        case .drive:
            var work: [Item] = []
            swap(&work, &state.spareWork)  // the work taken, or the empty spare when there was none
            return work
        case .stop:
            return nil
        case .close(let onClosed):
            delegate.loopDidClose()  // no owner comes after a closed loop's last
            for notify in onClosed { notify() }
            return nil
        }
    }

    /// Hands each transfer curl finished to the engine (in the owner's `state`).
    private func readFinishedTransfers(_ state: OwnerState) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            state.engine?.transferDidFinish(easy, message.pointee.data.result)
        }
    }

    /// How long `curl_multi_poll` may sleep: until `deadline`, the delegate's next, at most a
    /// second (curl shortens it further for its own timers).
    private func pollTimeoutMilliseconds(until deadline: UInt64?) -> Int32 {
        guard let deadline else { return 1000 }
        let now = MonotonicClock.now
        guard deadline > now else { return 0 }
        return Int32(min(1000, (deadline - now + 999_999) / 1_000_000))
    }

    /// A failure of the multi handle itself.
    private func multiError(_ code: CURLMcode, during call: String) -> RequestError {
        RequestError(.transportFailure, "\(call) failed: \(String(cString: curl_multi_strerror(code)))", curlCode: Int(code.rawValue))
    }
}
