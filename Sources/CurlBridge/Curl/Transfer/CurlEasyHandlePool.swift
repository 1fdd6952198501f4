/// The easy handles a loop keeps between transfers, so that a request does not pay for a fresh
/// one: `curl_easy_init`'s allocations and initialisation, and the handle's TLS session cache,
/// which a reused handle keeps. (libcurl 7.88 allocates the receive buffer per transfer either way.)
///
/// A handle comes back through ``recycle(_:reusable:)`` once its transfer has left the multi
/// handle. When curl handles are reused (`reusesHandles`) and this one may be, it is reset there
/// (``CurlEasyHandle/reset()``: every option, callback and pointer to the finished transfer
/// cleared), so an idle handle holds nothing of the request it served; the next transfer sets every
/// option it needs again. Otherwise — every handle on a libcurl before 8.1.0 (see
/// ``CurlGlobal/clearsHeaderStateOnReuse``), or one that may not be reused — its curl handle is
/// cleaned up and the object kept retired (``CurlEasyHandle/retire()``): the next transfer gets a
/// fresh curl handle in it (``CurlEasyHandle/revive()``), without the object's and its error
/// buffer's allocations. Confined to the loop's owner, like the transfers (so its list skips
/// run-time exclusivity checks).
final class CurlEasyHandlePool {
    /// How many idle handles the pool keeps; a handle recycled beyond that is cleaned up.
    let capacity: Int
    /// Whether a transfer may begin on a curl handle another transfer used (reset); when not,
    /// every transfer gets a fresh one.
    let reusesHandles: Bool
    /// Reset handles, most recently used last (taken first: its memory is the warmest).
    @exclusivity(unchecked) private var idle: [CurlEasyHandle] = []
    /// Retired handle objects (no curl handle), taken when no reset handle is left: a reset one
    /// keeps its TLS session cache, a revived one starts without.
    @exclusivity(unchecked) private var retired: [CurlEasyHandle] = []
    /// How many transfers began on a reused curl handle, readable from any thread (a test
    /// diagnostic; a retired object given a fresh curl handle is not counted).
    let reuses = TransferCounter()

    /// Creates an empty pool keeping at most `capacity` idle handles, reusing curl handles when
    /// `reusesHandles`.
    init(capacity: Int, reusesHandles: Bool) {
        self.capacity = capacity
        self.reusesHandles = reusesHandles
    }

    /// An idle handle — a reset one, or a retired one with a fresh curl handle — or a new one when
    /// there is none.
    ///
    /// - Throws: ``RequestError/Code/transportFailure`` when curl cannot make a handle.
    func take() throws(RequestError) -> CurlEasyHandle {
        if let handle = idle.popLast() {
            reuses.increment()
            return handle
        }
        guard let handle = retired.popLast() else { return try CurlEasyHandle() }
        try handle.revive()
        return handle
    }

    /// Takes back `handle`, which is in no multi handle any more: resets it when curl handles are
    /// reused, `reusable` is `true` and curl has let go of its receive buffer (see
    /// ``CurlEasyHandle/hasReleasedReceiveBuffer()``), retires it otherwise, and keeps it for the
    /// next transfer — or cleans it up when the pool is full.
    func recycle(_ handle: CurlEasyHandle, reusable: Bool = true) {
        guard idle.count + retired.count < capacity else { return }
        if reusesHandles, reusable {
            handle.reset()
            if handle.hasReleasedReceiveBuffer() { return idle.append(handle) }
        }
        handle.retire()
        retired.append(handle)
    }

    /// Cleans up reset handles beyond the `count` most recently used (when the loop goes idle: a
    /// burst's curl handles, with their buffers and session caches, are not kept once it is over).
    ///
    /// Retired objects stay, up to the pool's capacity: one holds no curl handle, only itself and
    /// its error buffer (a few hundred bytes), and a loop goes idle whenever nothing is in flight —
    /// between the rounds of callers that wait for every answer before asking again, every few
    /// dozen requests at 64 in flight. Trimmed there, most of each round's transfers allocated
    /// both again.
    func trim(to count: Int) {
        if idle.count > count { idle.removeFirst(idle.count - count) }
    }

    /// Cleans up every idle handle (when the loop closes).
    func drain() {
        idle.removeAll()
        retired.removeAll()
    }
}
