/// The last ``capacity`` request ids added, for a membership test: a bounded memory of requests
/// that completed before their span could start.
struct RecentIDs {
    /// How many ids it remembers; older ones are forgotten first.
    let capacity: Int
    private var members: Set<UInt64> = []
    private var order: [UInt64] = []
    private var oldest = 0

    /// An empty memory of at most `capacity` ids.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Remembers `id`, forgetting the oldest id when full.
    mutating func insert(_ id: UInt64) {
        guard members.insert(id).inserted else { return }
        if order.count < capacity {
            order.append(id)
        } else {
            members.remove(order[oldest])
            order[oldest] = id
            oldest = (oldest + 1) % capacity
        }
    }

    /// Forgets `id`, returning whether it was remembered (its slot is reused when its turn comes).
    mutating func remove(_ id: UInt64) -> Bool {
        members.remove(id) != nil
    }

    /// How many ids it remembers.
    var count: Int { members.count }
}
