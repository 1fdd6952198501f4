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
/// The bytes go into one `malloc`ed buffer, sized from the declared length when there is one, and
/// the response's `Data` takes that buffer over (`bytesNoCopy`, freed with the `Data`): one
/// allocation and one copy from curl's buffer per body, without `Data`'s own bookkeeping on every
/// piece. Confined to the loop, so its fields skip run-time exclusivity checks.
final class MemoryBodySink: BodySink {
    /// The cap, in bytes.
    private let limit: Int
    /// The request's method and URL, for the errors.
    private let method: HTTPRequest.Method
    private let url: String
    /// The body so far: `count` bytes of a `capacity`-byte `malloc` block, or `nil` before the first.
    @exclusivity(unchecked) private var bytes: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var capacity = 0

    init(for request: PreparedRequest) {
        method = request.method
        url = request.url
        limit = request.maximumBodySize
    }

    deinit {
        free(bytes)
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
            grow(to: max(count + piece.count, min(capacity * 2, limit)))
        }
        (bytes.unsafelyUnwrapped + count).copyMemory(from: source, byteCount: piece.count)
        count += piece.count
        return .accept
    }

    /// The body collected, leaving the sink empty.
    func take() -> Data {
        guard let collected = bytes, count > 0 else { return Data() }
        let body = Data(bytesNoCopy: collected, count: count, deallocator: .free)
        (bytes, count, capacity) = (nil, 0, 0)
        return body
    }

    /// Makes room for `size` bytes, keeping those collected.
    private func grow(to size: Int) {
        guard let moved = realloc(bytes, size) else {
            fatalError("out of memory: \(size) bytes for a response body")
        }
        (bytes, capacity) = (moved, size)
    }
}
