/// Where an ``HTTPCache`` keeps its responses: in memory, or in a directory. Every method may be
/// called from any thread (each transport's loop).
protocol CacheStore: AnyObject, Sendable {
    /// The key the cache's partitions, variants, names and seals are hashed with.
    var keyedHash: KeyedHash { get }
    /// The stored variants of `url` in `partition`, most recently used first.
    func variants(of url: String, partition: String) -> [StoredResponse]
    /// Stores `response`, replacing the variant of its URL and partition with the same
    /// ``StoredResponse/variant``, and evicts the least recently used responses while the total
    /// is above the limit. A response not `persistent` lives in memory only, for the life of the
    /// store, even in a disk store.
    func store(_ response: StoredResponse, persistent: Bool)
    /// Removes every variant of `url`, in every partition.
    func remove(url: String)
    /// Removes everything.
    func removeAll()
    /// The bytes stored.
    var totalSize: Int { get }
    /// Returns once every stored response is on disk (at once for memory).
    func flush()
}

/// The bookkeeping shared by both stores: which partitions and variants each URL has, how large
/// each is and when it was last used, and which to evict. Guarded by its store's lock.
struct CacheIndex<Slot> {
    struct Entry {
        var slot: Slot
        var partition: String
        var variant: [String: String]
        var size: Int
        var lastUse: UInt64
    }

    private(set) var entries: [String: [Entry]] = [:]
    private(set) var totalSize = 0
    private var clock: UInt64 = 0

    /// The entries of `url` in `partition`, most recently used first, each marked used now.
    mutating func use(_ url: String, partition: String) -> [Entry] {
        guard var list = entries[url] else { return [] }
        clock += 1
        for index in list.indices where list[index].partition == partition { list[index].lastUse = clock }
        list.sort { $0.lastUse > $1.lastUse }
        entries[url] = list
        return list.filter { $0.partition == partition }
    }

    /// Records `slot` for the variant `variant` of `url` in `partition`; returns the slot it
    /// replaced, if any.
    mutating func insert(_ slot: Slot, url: String, partition: String, variant: [String: String], size: Int) -> Slot? {
        clock += 1
        var list = entries[url] ?? []
        var replaced: Slot?
        if let index = list.firstIndex(where: { $0.partition == partition && $0.variant == variant }) {
            replaced = list[index].slot
            totalSize -= list[index].size
            list.remove(at: index)
        }
        list.insert(Entry(slot: slot, partition: partition, variant: variant, size: size, lastUse: clock), at: 0)
        entries[url] = list
        totalSize += size
        return replaced
    }

    /// Removes `url`'s entries; returns their slots.
    mutating func remove(_ url: String) -> [Slot] {
        guard let list = entries.removeValue(forKey: url) else { return [] }
        totalSize -= list.reduce(0) { $0 + $1.size }
        return list.map(\.slot)
    }

    /// Removes the one entry of `url` holding a slot `matching`; returns it.
    mutating func remove(_ url: String, where matching: (Slot) -> Bool) -> Slot? {
        guard var list = entries[url], let index = list.firstIndex(where: { matching($0.slot) }) else { return nil }
        let entry = list.remove(at: index)
        totalSize -= entry.size
        entries[url] = list.isEmpty ? nil : list
        return entry.slot
    }

    /// Removes least recently used entries until the total is at most `limit`; returns their slots.
    mutating func evict(toFit limit: Int) -> [Slot] {
        guard totalSize > limit else { return [] }
        var all = entries.flatMap { url, list in list.map { (url, $0) } }
        all.sort { $0.1.lastUse < $1.1.lastUse }
        var evicted: [Slot] = []
        for (url, entry) in all where totalSize > limit {
            let lastUse = entry.lastUse
            if var list = entries[url],
               let index = list.firstIndex(where: { $0.lastUse == lastUse && $0.partition == entry.partition && $0.variant == entry.variant }) {
                list.remove(at: index)
                entries[url] = list.isEmpty ? nil : list
                totalSize -= entry.size
                evicted.append(entry.slot)
            }
        }
        return evicted
    }

    /// Removes everything; returns every slot.
    mutating func removeAll() -> [Slot] {
        defer { entries = [:]; totalSize = 0 }
        return entries.values.flatMap { $0.map(\.slot) }
    }
}
