/// Objects by request number, for the tables the loop keeps of its requests and transfers: a
/// `Dictionary` without its hashing.
///
/// A transport numbers its requests in order, so the requests in flight at any moment are a
/// window of nearby numbers, and a number's low bits spread them over the slots by themselves. A
/// `[UInt64: Value]` hashes every key with SipHash (about 90 instructions, two or more per request
/// in each table); this table takes the number, masked, as its slot. Open addressing with linear
/// probing. A removal empties its slot when no probe can need to pass it: the slot after it is
/// empty, or every value held sits in its home slot (the usual case: the window is narrower than
/// the table, so its numbers do not collide). Otherwise it leaves a tombstone (the requests in
/// flight form one run of slots, which shifting entries back would walk to its end on every
/// removal); the next number whose home is that slot takes it again. At most half the slots are
/// taken or tombstones: past that, the table is built again, without its tombstones. (Tombstones
/// on every removal made a table at 64 in flight rebuild itself every 100 to 190 requests.)
///
/// Not `Sendable`: each table is confined to its loop, like the registry and engine holding it.
struct RequestTable<Value: AnyObject> {
    /// One slot: empty, a value, or the tombstone of a removed one.
    private struct Slot {
        var id: UInt64 = 0
        var value: Value?
        var isTombstone = false

        /// Whether a probe stops here: the slot holds nothing, and no probe needs to pass it.
        var isEmpty: Bool { value == nil && !isTombstone }
    }

    /// A power of two, at least ``minimumCapacity``.
    private var slots: [Slot]
    /// How many slots hold a value.
    private(set) var count = 0
    /// How many slots are tombstones.
    private var tombstones = 0
    /// How many values sit past their home slot, which a probe reaches only by passing the
    /// slots between: while none does, no removal needs a tombstone.
    private var displaced = 0

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
            guard let index = index(of: id) else { return nil }
            return slots[index].value
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

    /// The slot holding `id`'s value, if any.
    private func index(of id: UInt64) -> Int? {
        let mask = slots.count - 1
        var index = Self.home(of: id, mask: mask)
        while !slots[index].isEmpty {
            if slots[index].id == id, slots[index].value != nil { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Holds `value` for `id`, replacing the one it had.
    private mutating func insert(_ value: Value, for id: UInt64) {
        if (count + tombstones + 1) * 2 > slots.count { rebuild() }
        let mask = slots.count - 1
        var index = Self.home(of: id, mask: mask)
        var reusable: Int?
        while !slots[index].isEmpty {
            if slots[index].value == nil {
                if reusable == nil { reusable = index }
            } else if slots[index].id == id {
                slots[index].value = value
                return
            }
            index = (index + 1) & mask
        }
        if let reusable {
            index = reusable
            tombstones -= 1
        }
        slots[index] = Slot(id: id, value: value)
        count += 1
        if index != Self.home(of: id, mask: mask) { displaced += 1 }
    }

    /// Lets go of `id`'s value, if held.
    private mutating func remove(_ id: UInt64) {
        guard let index = index(of: id) else { return }
        let mask = slots.count - 1
        count -= 1
        if index != Self.home(of: id, mask: mask) { displaced -= 1 }
        // No probe needs to pass this slot before an empty one, nor when every value is at home.
        if displaced == 0 || slots[(index + 1) & mask].isEmpty {
            slots[index] = Slot()
        } else {
            slots[index].value = nil
            slots[index].isTombstone = true
            tombstones += 1
        }
    }

    /// Places every value again, without tombstones, in room for four times as many as are held
    /// (so that tombstones take long to fill it again), at least ``minimumCapacity`` slots.
    private mutating func rebuild() {
        var capacity = Self.minimumCapacity
        while capacity < (count + 1) * 4 { capacity *= 2 }
        let old = slots
        slots = Array(repeating: Slot(), count: capacity)
        (count, tombstones, displaced) = (0, 0, 0)
        for slot in old {
            if let value = slot.value { insert(value, for: slot.id) }
        }
    }
}
