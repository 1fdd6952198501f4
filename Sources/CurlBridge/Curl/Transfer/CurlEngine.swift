internal import CCurl

/// Runs transfers on curl: one ``CurlTransfer`` per request in flight, on a pooled easy handle,
/// in the loop's multi handle. It applies the idle timeout that each transfer's ``IdleClock``
/// decides, and reports every end to the transfer's receiver.
///
/// Confined to the loop: other threads reach it only through work submitted to the loop, which
/// finds it as the loop's ``CurlMultiLoop/engine``.
final class CurlEngine: TransferEngine {
    /// The loop whose multi handle runs the transfers; it owns this engine (through its delegate).
    private unowned let loop: CurlMultiLoop
    /// Options applied to each easy handle.
    private let easyOptions: CurlEasyOptions
    /// Transfers in flight, by request id; holding them here keeps curl's callback pointers valid.
    /// No run-time exclusivity check: only the loop's thread reaches it.
    @exclusivity(unchecked) private var transfers = RequestTable<CurlTransfer>()
    /// Easy handles between transfers: reset ones where curl handles are reused, retired objects
    /// (no curl handle) where reuse is unsafe.
    private let handles: CurlEasyHandlePool
    /// The receive buffer of each transfer, by what its body goes to and the last collected body's size.
    @exclusivity(unchecked) private var receiveBuffers: CurlReceiveBufferChoice
    let inFlight = TransferCounter()
    /// The earliest moment an idle timeout could expire, in `MonotonicClock` nanoseconds.
    private var nextIdleCheck: UInt64?
    /// The loop's clock for curl's callbacks, which each transfer reads.
    private let callbackClock: CallbackClock

    /// How many idle easy handles (reset, or retired: see ``CurlEasyHandlePool``) the engine keeps
    /// for its next transfers while busy: enough for a thousand transfers in flight to recycle
    /// theirs, rather than free and allocate one each.
    static let idleHandleCapacity = 1024
    /// How many reset handles it keeps once nothing is in flight (retired objects, which hold no
    /// curl handle, stay: see ``CurlEasyHandlePool/trim(to:)``).
    static let restingHandleCapacity = 16

    init(loop: CurlMultiLoop, options: CurlEasyOptions) {
        self.loop = loop
        self.easyOptions = options
        handles = CurlEasyHandlePool(capacity: Self.idleHandleCapacity, reusesHandles: options.reusesHandles)
        receiveBuffers = CurlReceiveBufferChoice(configured: options.receiveBufferSize)
        callbackClock = loop.callbackClock
        loop.engine = self
    }

    /// How many transfers began on a reused easy handle (a test diagnostic, read from any thread).
    var reusedHandles: TransferCounter { handles.reuses }

    /// Read at every turn of the loop: the in-flight count (kept with the table, on the loop's
    /// thread) rather than an access to the table.
    var isBusy: Bool { inFlight.own > 0 }

    func begin(_ request: PreparedRequest, id: UInt64, receiver: any TransferReceiver) {
        let transfer: CurlTransfer
        do {
            transfer = try makeTransfer(request, id: id, receiver: receiver)
        } catch {
            receiver.transferEnded(TransferEnd(result: .failure(error)))
            return
        }
        let added = loop.add(transfer.easy.raw)
        guard added == CURLM_OK else {
            transfer.closeBody()
            handles.recycle(transfer.easy, reusable: false)
            let error = RequestError(
                .transportFailure, "curl_multi_add_handle failed: \(String(cString: curl_multi_strerror(added)))",
                curlCode: Int(added.rawValue))
            receiver.transferEnded(TransferEnd(result: .failure(error)))
            return
        }
        assert(transfers[id] == nil, "request \(id) began a second transfer while its first was in flight")
        transfers[id] = transfer
        inFlight.increment()  // with the table: isBusy reads it
        scheduleIdleCheck(for: transfer)
    }

    /// A transfer on a pooled easy handle, its body stream started; the handle goes back to the
    /// pool when either step fails.
    private func makeTransfer(_ request: PreparedRequest, id: UInt64, receiver: any TransferReceiver) throws(RequestError) -> CurlTransfer {
        let easy = try handles.take()
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(
                id: id, request: request, receiver: receiver, options: easyOptions, easy: easy,
                receiveBufferSize: receiveBuffers.size(collectsBody: receiver.collectsBody, inFlight: inFlight.own),
                clock: callbackClock)
        } catch {
            handles.recycle(easy)
            throw error
        }
        guard transfer.sendsBodyStream else { return transfer }
        do {
            // The wake-up names the loop only: the engine is found there, on the loop.
            try transfer.startBodyStream { [weak loop] in
                loop?.submit { [weak loop] in loop?.engine?.resumeSending(id) }
            }
        } catch {
            transfer.closeBody()
            handles.recycle(easy)
            throw error
        }
        return transfer
    }

    func stop(_ id: UInt64) -> TransferProgress? {
        guard let transfer = transfers[id] else { return nil }
        let progress = transfer.finalProgress()
        transfer.abandonConnectionIfUnused()
        release(transfer, reusingHandle: transfer.leavesHandleReusable)
        return progress
    }

    func pauseReceiving(_ id: UInt64) {
        transfers[id]?.pauseReceiving()
    }

    func resumeReceiving(_ id: UInt64) {
        guard let transfer = transfers[id] else { return }
        transfer.resumeReceiving()
        scheduleIdleCheck(for: transfer)
    }

    func resumeSending(_ id: UInt64) {
        guard let transfer = transfers[id] else { return }
        transfer.resumeSending()
        scheduleIdleCheck(for: transfer)
    }

    func transferDidFinish(_ easy: UnsafeMutableRawPointer, _ result: CURLcode) {
        var context: UnsafeMutableRawPointer?
        guard ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context) == CURLE_OK, let context else { return }
        let transfer = CurlTransfer.from(context)
        let end = transfer.end(with: result)
        if transfer.receiver.collectsBody {
            receiveBuffers.collectedBodyEnded(receiving: transfer.easy.info(offset: CURLINFO_SIZE_DOWNLOAD_T))
        }
        // A transfer failed on a closing session may be sent again: on a new handle, so a new connection.
        release(transfer, reusingHandle: transfer.leavesHandleReusable && !end.failedOnClosingSession)
        transfer.receiver.transferEnded(end)
    }

    /// Ends `transfer` with `error` and reports it.
    private func fail(_ transfer: CurlTransfer, with error: RequestError) {
        let end = transfer.end(failingWith: error)
        transfer.abandonConnectionIfUnused()
        release(transfer, reusingHandle: transfer.leavesHandleReusable)
        transfer.receiver.transferEnded(end)
    }

    /// Takes `transfer` out of curl and the table, and gives its handle back to the pool.
    private func release(_ transfer: CurlTransfer, reusingHandle reusable: Bool) {
        loop.remove(transfer.easy.raw)
        transfer.closeBody()
        handles.recycle(transfer.easy, reusable: reusable)
        transfers[transfer.id] = nil
        inFlight.decrement()
    }

    func failAll(_ error: RequestError) {
        for transfer in transfers.values { fail(transfer, with: error) }
    }

    func rest(closed: Bool) {
        if closed { handles.drain() } else { handles.trim(to: Self.restingHandleCapacity) }
    }

    // MARK: Idle timeouts

    /// Makes sure the loop looks at `transfer` no later than its idle deadline.
    private func scheduleIdleCheck(for transfer: CurlTransfer) {
        guard let clock = transfer.state.idleClock else { return }
        schedule(clock.deadline(connectedAfter: transfer.connectedAfter ?? 0))
    }

    private func schedule(_ deadline: UInt64) {
        nextIdleCheck = min(nextIdleCheck ?? deadline, deadline)
    }

    /// Fails transfers whose ``IdleClock`` expired. Activity only pushes deadlines later, so the
    /// table is scanned only when the earliest possible deadline has passed. A paused transfer is
    /// never idle; resuming it schedules its next check.
    func expire(at now: UInt64) -> UInt64? {
        guard let check = nextIdleCheck, now >= check else { return nextIdleCheck }
        nextIdleCheck = nil
        for transfer in transfers.values where !transfer.state.isPaused {
            guard var clock = transfer.state.idleClock else { continue }
            let verdict = clock.check(at: now, connectedAfter: transfer.connectedAfter)
            transfer.state.idleClock = clock
            switch verdict {
            case .checkAgain(let deadline):
                schedule(deadline)
            case .expired:
                fail(transfer, with: RequestError(.idleTimedOut, "no byte was sent or received for \(clock.limit / 1_000_000) ms"))
            }
        }
        return nextIdleCheck
    }
}
