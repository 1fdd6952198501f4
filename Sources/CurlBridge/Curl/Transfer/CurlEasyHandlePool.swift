/// The easy handles a loop keeps between transfers, so that a request does not pay for a fresh
/// one: `curl_easy_init`'s allocations and initialisation, and the handle's TLS session cache,
/// which a reused handle keeps. (libcurl 7.88 allocates the receive buffer per transfer either way.)
///
/// On a libcurl before 8.1.0 the engine makes it with no capacity, so every transfer gets a fresh
/// handle (see ``CurlGlobal/clearsHeaderStateOnReuse``).
///
/// A handle comes back through ``recycle(_:)`` once its transfer has left the multi handle, and is
/// reset there (``CurlEasyHandle/reset()``: every option, callback and pointer to the finished
/// transfer cleared), so an idle handle holds nothing of the request it served; the next transfer
/// sets every option it needs again. Confined to the loop's owner, like the transfers (so its list
/// skips run-time exclusivity checks).
final class CurlEasyHandlePool {
    /// How many idle handles the pool keeps; a handle recycled beyond that is cleaned up.
    let capacity: Int
    /// Idle handles, most recently used last (taken first: its memory is the warmest).
    @exclusivity(unchecked) private var idle: [CurlEasyHandle] = []
    /// How many transfers began on a reused handle, readable from any thread (a test diagnostic).
    let reuses = TransferCounter()

    /// Creates an empty pool keeping at most `capacity` idle handles.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// An idle handle, or a fresh one when there is none.
    ///
    /// - Throws: ``RequestError/Code/transportFailure`` when curl cannot make a handle.
    func take() throws(RequestError) -> CurlEasyHandle {
        guard let handle = idle.popLast() else { return try CurlEasyHandle() }
        reuses.increment()
        return handle
    }

    /// Takes back `handle`, which is in no multi handle any more: resets it and keeps it for the
    /// next transfer, or cleans it up when the pool is full, `reusable` is `false`, or curl still
    /// holds its receive buffer (see ``CurlEasyHandle/hasReleasedReceiveBuffer()``).
    func recycle(_ handle: CurlEasyHandle, reusable: Bool = true) {
        guard reusable, idle.count < capacity else { return }
        handle.reset()
        guard handle.hasReleasedReceiveBuffer() else { return }
        idle.append(handle)
    }

    /// Cleans up idle handles beyond the `count` most recently used (when the loop goes idle: a
    /// burst's handles are not kept once it is over).
    func trim(to count: Int) {
        guard idle.count > count else { return }
        idle.removeFirst(idle.count - count)
    }

    /// Cleans up every idle handle (when the loop closes).
    func drain() {
        idle.removeAll()
    }
}
