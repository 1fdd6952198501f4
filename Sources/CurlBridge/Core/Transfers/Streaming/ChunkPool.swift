#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reusable buffers for a streamed body's chunks, each handed to the consumer as a `Data` that
/// gives its buffer back when released.
///
/// Allocations freed and made again for every chunk cost more than the copy into them: glibc
/// serves large ones from fresh pages (an `mmap`, or a heap top it has just trimmed), and the kernel
/// faults and zeroes each page — tens of thousands of page faults per gigabyte streamed. Reused
/// buffers keep their pages. Capacities are powers of two; the unused buffers kept add up to at
/// most the pool's budget, so a stream holds no more memory than its watermarks allow in flight.
final class ChunkPool: Sendable {
    private struct State {
        /// Unused buffers by capacity.
        var free: [Int: [UnsafeMutableRawPointer]] = [:]
        /// The capacity of every unused buffer, added up.
        var freeBytes = 0
    }

    /// The most bytes of unused buffers kept.
    private let budget: Int
    private let state = PosixLock(State())

    /// A pool keeping at most `budget` bytes of unused buffers.
    init(budget: Int) {
        self.budget = budget
    }

    deinit {
        state.withLock { state in
            for buffer in state.free.values.joined() { buffer.deallocate() }
        }
    }

    /// The bytes of unused buffers the pool keeps now.
    var keptBytes: Int {
        state.withLock { $0.freeBytes }
    }

    /// A buffer of `capacity` bytes (a power of two): an unused one, or a new one.
    func buffer(capacity: Int) -> UnsafeMutableRawPointer {
        let reused = state.withLock { state -> UnsafeMutableRawPointer? in
            guard let buffer = state.free[capacity]?.popLast() else { return nil }
            state.freeBytes -= capacity
            return buffer
        }
        return reused ?? UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    /// The first `count` bytes of `buffer` as a `Data` that gives the buffer back to this pool
    /// when the last copy of it is released.
    func data(_ buffer: UnsafeMutableRawPointer, count: Int, capacity: Int) -> Data {
        Data(bytesNoCopy: buffer, count: count, deallocator: .custom { [self] pointer, _ in
            recycle(pointer, capacity: capacity)
        })
    }

    /// Takes back a buffer of `capacity` that nothing uses: kept while the budget allows, freed
    /// otherwise.
    func recycle(_ buffer: UnsafeMutableRawPointer, capacity: Int) {
        let kept = state.withLock { state -> Bool in
            guard state.freeBytes + capacity <= budget else { return false }
            state.free[capacity, default: []].append(buffer)
            state.freeBytes += capacity
            return true
        }
        if !kept { buffer.deallocate() }
    }
}
