/// A cache store in memory, bounded by bytes, least recently used out first.
final class MemoryCacheStore: CacheStore {
    private let limit: Int
    private let index = PosixLock(CacheIndex<StoredResponse>())
    /// A key of its own, as the responses live no longer than the process.
    let keyedHash = KeyedHash.random()

    init(limit: Int) {
        self.limit = limit
    }

    func variants(of url: String, partition: String) -> [StoredResponse] {
        index.withLock { $0.use(url, partition: partition).map(\.slot) }
    }

    func store(_ response: StoredResponse, persistent: Bool) {
        index.withLock { index in
            _ = index.insert(response, url: response.url, partition: response.partition, variant: response.variant, size: response.size)
            _ = index.evict(toFit: limit)
        }
    }

    func remove(url: String) {
        index.withLock { _ = $0.remove(url) }
    }

    func removeAll() {
        index.withLock { _ = $0.removeAll() }
    }

    var totalSize: Int { index.withLock { $0.totalSize } }

    func flush() {}
}
