import Crypto
import Foundation

/// The test server's pattern bodies and the bodies the tests upload.
enum ExpectedBytes {
    /// Byte `index` of `/resource/N` (version 1).
    static func resource(at index: Int64) -> UInt8 {
        UInt8((index + 1) % 251)
    }

    /// Byte `index` of `/chunked/N` and `/bytes/N`.
    static func pattern(at index: Int64) -> UInt8 {
        UInt8(index % 251)
    }
}

/// An upload body made chunk by chunk as it is read: `count` bytes where byte `i` is
/// `UInt8(i * 7 % 256)`, in chunks of `chunkSize`.
struct GeneratedUpload: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let count: Int
    let chunkSize: Int

    /// The lowercase hex SHA-256 of the whole body.
    var sha256: String {
        var hasher = SHA256()
        var iterator = Iterator(count: count, chunkSize: chunkSize)
        while let chunk = iterator.nextChunk() { hasher.update(data: Data(chunk)) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(count: count, chunkSize: chunkSize)
    }

    struct Iterator: AsyncIteratorProtocol {
        let count: Int
        let chunkSize: Int
        private var offset = 0

        init(count: Int, chunkSize: Int) {
            self.count = count
            self.chunkSize = chunkSize
        }

        mutating func next() async -> ArraySlice<UInt8>? {
            nextChunk()
        }

        mutating func nextChunk() -> ArraySlice<UInt8>? {
            guard offset < count else { return nil }
            let end = Swift.min(offset + chunkSize, count)
            defer { offset = end }
            return ArraySlice((offset..<end).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        }
    }
}
