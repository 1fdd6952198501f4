@testable import CurlBridge
import CurlBridgeTestServer
import Testing

/// ``RequestTable``: held to a `Dictionary` over the same operations.
@Suite struct RequestTableTests {
    /// A value with an identity, as the table holds the loop's requests and transfers.
    final class Entry {
        let id: UInt64
        init(_ id: UInt64) { self.id = id }
    }

    /// A sliding window of request numbers, as a transport's are, and numbers far apart that share
    /// home slots, added and removed at random: after every operation the table holds what a
    /// dictionary holds, and finds each of its entries.
    @Test func holdsWhatADictionaryHolds() {
        var random = SeededGenerator(seed: 0x3737)
        var table = RequestTable<Entry>()
        var reference: [UInt64: Entry] = [:]
        var live: [UInt64] = []  // the held numbers in an order of the test's own (a dictionary's differs per process)
        var next: UInt64 = 1
        for step in 0..<20_000 {
            let roll = Int.random(in: 0..<10, using: &random)
            if roll < 5 || live.isEmpty {
                // A new request; every so often one whose number shares its home slot with many
                // (a multiple of 1024).
                let id = step % 97 == 0 ? UInt64(Int.random(in: 1...64, using: &random)) * 1024 : next
                next += 1
                let entry = Entry(id)
                table[id] = entry
                if reference.updateValue(entry, forKey: id) == nil { live.append(id) }
            } else if roll < 8 {
                let index = Int.random(in: 0..<live.count, using: &random)
                let id = live[index]
                live.swapAt(index, live.count - 1)
                live.removeLast()
                table[id] = nil
                reference[id] = nil
            } else {
                let id = UInt64(Int.random(in: 0...Int(next + 2048), using: &random))
                table[id] = nil
                if reference.removeValue(forKey: id) != nil { live.removeAll { $0 == id } }
            }
            #expect(table.count == reference.count)
            if step % 500 == 0 || reference.count < 4 {
                for (id, entry) in reference { #expect(table[id] === entry) }
                #expect(Set(table.values.map(\.id)) == Set(reference.keys))
            }
        }
        for id in reference.keys { table[id] = nil }
        #expect(table.isEmpty && table.values.isEmpty)
    }

    /// 64 requests in flight as a transport has them — each new number taking the place of the
    /// oldest — past two that live long (a slow download, and one whose number shares its home slot
    /// with later ones): every number held is found until it is removed, and none after.
    @Test func findsASlidingWindowPastLongLivedRequests() {
        var table = RequestTable<Entry>()
        let slow = Entry(3), shared = Entry(1024)
        table[slow.id] = slow
        table[shared.id] = shared
        var window: [Entry] = []
        for id in UInt64(4)..<20_000 where id != shared.id {
            let entry = Entry(id)
            table[id] = entry
            window.append(entry)
            if window.count > 64 {
                let oldest = window.removeFirst()
                table[oldest.id] = nil
                #expect(table[oldest.id] == nil)
            }
            #expect(table[slow.id] === slow && table[shared.id] === shared)
            if id % 1000 == 0 {
                for held in window { #expect(table[held.id] === held) }
            }
        }
        #expect(table.count == window.count + 2)
    }

    /// Setting a number again replaces its value; a number never held is not found.
    @Test func replacesAndMisses() {
        var table = RequestTable<Entry>()
        let (first, second) = (Entry(5), Entry(5))
        table[5] = first
        table[5] = second
        #expect(table.count == 1 && table[5] === second)
        #expect(table[21] == nil && table[0] == nil)
        table[21] = nil
        #expect(table.count == 1)
    }
}
