/// A value kept behind one reference, shared by copies until one of them changes it: a copy costs
/// one retain however many fields the value has. ``Request`` and ``Response`` keep their fields in
/// one, as they are copied into every attempt, hop and event of a request's life.
struct CopyOnWrite<Value: Sendable>: Sendable {
    /// The box the value lives in. `@unchecked Sendable`: it is changed only through ``value``,
    /// by the one holder that has it alone.
    private final class Box: @unchecked Sendable {
        /// Unchecked at run time: only ``CopyOnWrite/value`` reaches it, a read or a change of a box
        /// no one else holds, which the compiler already checks as an access to the holder.
        @exclusivity(unchecked) var value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    private var box: Box

    init(_ value: Value) {
        box = Box(value)
    }

    /// The value; changing it first copies the box if another holder shares it.
    var value: Value {
        _read { yield box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }

    /// Whether `other` shares this box (then the values are equal without comparing them).
    func sharesStorage(with other: CopyOnWrite) -> Bool {
        box === other.box
    }
}
