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

/// A response body collected in memory, capped at the request's ``Configuration/maximumBodySize``:
/// a body declared larger is refused at its head, one that grows larger fails when it does.
///
/// The bytes go into one `malloc`ed buffer, sized from the declared length when there is one, and
/// the response's `Data` takes that buffer over (`bytesNoCopy`, freed with the `Data`): one
/// allocation and one copy from curl's buffer per body, without `Data`'s own bookkeeping on every
/// piece.
///
/// A noncopyable value kept inside its request's ``RequestExecutor`` — not an object of its own,
/// so a plain send allocates nothing for it but the bytes — and confined, like the executor, to
/// the loop. It collects for one hop at a time: ``collect(for:)`` starts a hop's body (dropping
/// any earlier one), ``stop()`` gives the hop's body to a consumer instead.
struct MemoryBody: ~Copyable {
    /// The hop whose body is collected: its cap, method and URL (for the errors); `nil` when
    /// nothing is collected.
    private var request: PreparedRequest?
    /// The body so far: `count` bytes of a `capacity`-byte `malloc` block, or `nil` before the first.
    private var bytes: UnsafeMutableRawPointer?
    private var count = 0
    private var capacity = 0

    /// Collects nothing until ``collect(for:)``.
    init() {}

    deinit {
        free(bytes)
    }

    /// Whether a hop's body is collected here.
    var isCollecting: Bool { request != nil }

    /// Collects the body of a hop sending `request`, from nothing.
    mutating func collect(for request: PreparedRequest) {
        drop()
        self.request = request
    }

    /// Collects nothing: the running hop's body goes to a consumer.
    mutating func stop() {
        drop()
        request = nil
    }

    /// Why a head that declares `length` body bytes cannot be collected, if it cannot: above the
    /// cap, for a response that has a body. Reserves room for it otherwise. `nil` when nothing
    /// is collected.
    mutating func refusal(declaredLength length: Int64?, status: Int) -> RequestError? {
        guard let request, let length, length > 0, BodyPresence.responseHasBody(method: request.method, status: status) else {
            return nil
        }
        guard length <= request.maximumBodySize else {
            return RequestError(
                .bodyTooLarge,
                "the response declares \(length) body bytes, above the in-memory cap of \(request.maximumBodySize) bytes",
                method: request.method, url: request.url)
        }
        if Int(length) > capacity { grow(to: Int(length)) }
        return nil
    }

    /// Takes a piece of the body, valid only during the call; accepts it without keeping it when
    /// nothing is collected.
    mutating func write(_ piece: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        guard let request else { return .accept }
        let limit = request.maximumBodySize
        guard count + piece.count <= limit else {
            return .fail(RequestError(
                .bodyTooLarge, "the body exceeds the in-memory cap of \(limit) bytes", method: request.method, url: request.url))
        }
        guard let source = piece.baseAddress, !piece.isEmpty else { return .accept }
        if count + piece.count > capacity {
            // Doubling (up to the cap) keeps a body of unknown length to a logarithmic number of moves.
            grow(to: max(count + piece.count, min(capacity * 2, limit)))
        }
        (bytes.unsafelyUnwrapped + count).copyMemory(from: source, byteCount: piece.count)
        count += piece.count
        return .accept
    }

    /// The body collected, leaving it empty (still collecting for the same hop).
    mutating func take() -> Data {
        guard let collected = bytes, count > 0 else { return Data() }
        let body = Data(bytesNoCopy: collected, count: count, deallocator: .free)
        (bytes, count, capacity) = (nil, 0, 0)
        return body
    }

    /// Frees what was collected.
    private mutating func drop() {
        free(bytes)
        (bytes, count, capacity) = (nil, 0, 0)
    }

    /// Makes room for `size` bytes, keeping those collected.
    private mutating func grow(to size: Int) {
        guard let moved = realloc(bytes, size) else {
            fatalError("out of memory: \(size) bytes for a response body")
        }
        (bytes, capacity) = (moved, size)
    }
}
