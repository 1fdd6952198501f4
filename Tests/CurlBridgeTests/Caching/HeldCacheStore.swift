@testable import CurlBridge
import Dispatch

/// A memory cache store whose reads wait, while it is held, until the test releases it: a disk
/// as slow as the test wants. Each read announces itself on ``readsBegun`` before it waits.
final class HeldCacheStore: CacheStore {
    private let inner = MemoryCacheStore(limit: 8 << 20)
    private let isHeld = PosixLock(true)
    private let gate = DispatchSemaphore(value: 0)
    private let began: AsyncStream<Void>.Continuation
    /// One element per read begun.
    let readsBegun: AsyncStream<Void>

    init() {
        (readsBegun, began) = AsyncStream.makeStream()
    }

    var keyedHash: KeyedHash { inner.keyedHash }

    func variants(of url: String, partition: String) -> [StoredResponse] {
        began.yield()
        if isHeld.withLock({ $0 }) { gate.wait() }
        return inner.variants(of: url, partition: partition)
    }

    /// Lets the waiting read (if any) and every later one go on.
    func release() {
        isHeld.withLock { $0 = false }
        gate.signal()
    }

    func store(_ response: StoredResponse, persistent: Bool) { inner.store(response, persistent: persistent) }
    func remove(url: String) { inner.remove(url: url) }
    func removeAll() { inner.removeAll() }
    var totalSize: Int { inner.totalSize }
    func flush() { inner.flush() }
}
