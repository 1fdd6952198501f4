/// Objects by request number, for the tables the loop keeps of its requests and transfers: a
/// `Dictionary` without its hashing.
///
/// A transport numbers its requests in order, so the requests in flight at any moment are a
/// window of nearby numbers, and a number's low bits spread them over the slots by themselves. A
/// `[UInt64: Value]` hashes every key with SipHash (about 90 instructions, two or more per request
/// in each table); this table takes the number, masked, as its slot. Open addressing with linear
/// probing, at most half full; a removal shifts the entries after it back into place, so no
/// tombstone ever lengthens a probe.
///
/// Not `Sendable`: each table is confined to its loop, like the registry and engine holding it.
struct RequestTable<Value: AnyObject> {
    /// One slot: empty when `value` is `nil`.
    private struct Slot {
        var id: UInt64 = 0
        var value: Value?
    }

    /// A power of two, at least ``minimumCapacity``.
    private var slots: [Slot]
    /// How many slots hold a value.
    private(set) var count = 0

    /// The fewest slots a table has.
    private static var minimumCapacity: Int { 16 }

    /// An empty table.
    init() {
        slots = Array(repeating: Slot(), count: Self.minimumCapacity)
    }

    /// Whether no value is held.
    var isEmpty: Bool { count == 0 }

    /// The values held, in no particular order: a copy, so the table may change while it is walked.
    var values: [Value] {
        slots.compactMap(\.value)
    }

    /// The value of request `id`; setting `nil` removes it.
    subscript(id: UInt64) -> Value? {
        get {
            let mask = slots.count - 1
            var index = Self.home(of: id, mask: mask)
            while let value = slots[index].value {
                if slots[index].id == id { return value }
                index = (index + 1) & mask
            }
            return nil
        }
        set {
            if let newValue { insert(newValue, for: id) } else { remove(id) }
        }
    }

    /// The slot a number is looked for first.
    @inline(__always)
    private static func home(of id: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: id) & mask
    }

    /// Holds `value` for `id`, replacing the one it had.
    private mutating func insert(_ value: Value, for id: UInt64) {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var index = Self.home(of: id, mask: mask)
        while slots[index].value != nil {
            if slots[index].id == id {
                slots[index].value = value
                return
            }
            index = (index + 1) & mask
        }
        slots[index] = Slot(id: id, value: value)
        count += 1
    }

    /// Lets go of `id`'s value, if held: the entries of the run after it that belong at or before
    /// its slot move back, so every entry stays reachable from its home slot without a gap.
    private mutating func remove(_ id: UInt64) {
        let mask = slots.count - 1
        var hole = Self.home(of: id, mask: mask)
        while slots[hole].id != id || slots[hole].value == nil {
            guard slots[hole].value != nil else { return }
            hole = (hole + 1) & mask
        }
        slots[hole].value = nil
        count -= 1
        var next = (hole + 1) & mask
        while slots[next].value != nil {
            let home = Self.home(of: slots[next].id, mask: mask)
            // The entry may fill the hole when its home is not in the run (hole, next].
            let distanceToHole = (hole - home) & mask
            let distanceToNext = (next - home) & mask
            if distanceToHole < distanceToNext {
                slots[hole] = slots[next]
                slots[next].value = nil
                hole = next
            }
            next = (next + 1) & mask
        }
    }

    /// Doubles the slots, placing every value again.
    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(), count: old.count * 2)
        count = 0
        for slot in old {
            if let value = slot.value { insert(value, for: slot.id) }
        }
    }
}
