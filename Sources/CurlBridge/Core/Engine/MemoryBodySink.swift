#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// A response body collected in memory, capped at the request's ``Configuration/maximumBodySize``:
/// a body declared larger is refused at its head, one that grows larger fails when it does.
///
/// The bytes go into one block, sized from the declared length when there is one, and the
/// response's `Data` takes that block over (`bytesNoCopy`): one copy from curl's buffer per body,
/// without `Data`'s own bookkeeping on every piece. Blocks of ``pooledSizes`` come from the
/// transport's ``ChunkPool`` and go back to it when the last copy of the `Data` is released, so a
/// transport receiving many medium bodies reuses a few blocks instead of faulting in fresh pages
/// for each one (glibc returns the top of a heap to the kernel once a large free leaves it big).
/// Smaller and larger blocks are `malloc`ed and freed with the `Data`. Confined to the loop, so
/// its fields skip run-time exclusivity checks.
///
/// Who sees a pooled block: the loop, which writes a body into it from its first byte, and then
/// only the holders of that body's `Data`, which reaches its first `count` bytes — those this body
/// wrote. Bytes an earlier body left past them are never part of the `Data`: its capacity is its
/// count, so growing it moves the bytes to new storage, zero-filled.
final class MemoryBodySink: BodySink {
    /// The sizes of block the transport's pool serves: below, `malloc` is as cheap and keeps no
    /// memory aside; above, a block is rare enough not to keep.
    static let pooledSizes = (16 << 10)...(1 << 20)
    /// The first block of a body without a declared length (or the cap, if lower): most such bodies
    /// fit without being moved; a small one is copied out of it at the end.
    static let undeclaredFirstBlock = 64 << 10

    /// The cap, in bytes.
    private let limit: Int
    /// The request's method and URL, for the errors.
    private let method: HTTPRequest.Method
    private let url: String
    /// Where blocks of ``pooledSizes`` come from and go back to.
    private let pool: ChunkPool
    /// The body so far: `count` bytes of a `capacity`-byte block, or `nil` before the first.
    @exclusivity(unchecked) private var bytes: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var capacity = 0
    /// Whether `bytes` is the pool's (else `malloc`ed).
    @exclusivity(unchecked) private var isPooled = false

    init(for request: PreparedRequest, pool: ChunkPool) {
        method = request.method
        url = request.url
        limit = request.maximumBodySize
        self.pool = pool
    }

    deinit {
        releaseBlock()
    }

    /// Why a head that declares `length` body bytes cannot be collected, if it cannot: above the
    /// cap, for a response that has a body. Reserves room for it otherwise.
    func refusal(declaredLength length: Int64?, status: Int) -> RequestError? {
        guard let length, length > 0, BodyPresence.responseHasBody(method: method, status: status) else { return nil }
        guard length <= limit else {
            return RequestError(
                .bodyTooLarge, "the response declares \(length) body bytes, above the in-memory cap of \(limit) bytes",
                method: method, url: url)
        }
        if Int(length) > capacity { grow(to: Int(length)) }
        return nil
    }

    func write(_ piece: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        guard count + piece.count <= limit else {
            return .fail(RequestError(
                .bodyTooLarge, "the body exceeds the in-memory cap of \(limit) bytes", method: method, url: url))
        }
        guard let source = piece.baseAddress, !piece.isEmpty else { return .accept }
        if count + piece.count > capacity {
            // Doubling (up to the cap) keeps a body of unknown length to a logarithmic number of moves.
            let next = capacity == 0 ? Self.undeclaredFirstBlock : capacity * 2
            grow(to: max(count + piece.count, min(next, limit)))
        }
        (bytes.unsafelyUnwrapped + count).copyMemory(from: source, byteCount: piece.count)
        count += piece.count
        return .accept
    }

    /// The body collected, leaving the sink empty.
    func take() -> Data {
        guard let collected = bytes, count > 0 else { return Data() }
        let body: Data
        if !isPooled {
            body = Data(bytesNoCopy: collected, count: count, deallocator: .free)
        } else if count < Self.pooledSizes.lowerBound {
            // A small body of unknown length: its own storage, and the block back at once.
            body = Data(bytes: collected, count: count)
            pool.recycle(collected, capacity: capacity)
        } else {
            body = pool.data(collected, count: count, capacity: capacity)
        }
        (bytes, count, capacity, isPooled) = (nil, 0, 0, false)
        return body
    }

    /// The capacity of the pool's block for `size` bytes: `size` rounded up to a quarter of the
    /// power of two below it, so that a block wastes at most a fifth of itself and the pool keeps
    /// few sizes (16, 20, 24, 28, 32, 40, … KiB).
    static func blockCapacity(for size: Int) -> Int {
        let step = max(1, (1 << (Int.bitWidth - 1 - size.leadingZeroBitCount)) / 4)
        return (size + step - 1) / step * step
    }

    /// Makes room for `size` bytes, keeping those collected.
    private func grow(to size: Int) {
        guard Self.pooledSizes.contains(size) || isPooled else {
            guard let moved = realloc(bytes, size) else {
                fatalError("out of memory: \(size) bytes for a response body")
            }
            (bytes, capacity) = (moved, size)
            return
        }
        let pooled = Self.pooledSizes.contains(size)
        let newCapacity = pooled ? Self.blockCapacity(for: size) : size
        guard let block = pooled ? pool.buffer(capacity: newCapacity) : malloc(newCapacity) else {
            fatalError("out of memory: \(size) bytes for a response body")
        }
        if let bytes, count > 0 { block.copyMemory(from: bytes, byteCount: count) }
        releaseBlock()
        (bytes, capacity, isPooled) = (block, newCapacity, pooled)
    }

    /// Gives the block back to where it came from.
    private func releaseBlock() {
        guard let bytes else { return }
        if isPooled { pool.recycle(bytes, capacity: capacity) } else { free(bytes) }
    }
}
