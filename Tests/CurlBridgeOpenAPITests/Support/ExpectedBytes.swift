import Crypto
import CurlBridgeTestServer
import Foundation

/// The test server's pattern bodies and the bodies the tests upload.
///
/// Every check compares whole chunks with `==` (a `memcmp`) against bytes the server's own
/// ``TestServer/patternBody(_:version:)`` makes: a per-byte loop over megabytes, in this debug
/// build, holds a cooperative thread for a second and starves the rest of the run.
enum ExpectedBytes {
    /// Whether `chunk` is bytes `offset ..< offset + chunk.count` of `/resource/N` (version 1).
    static func isResource(_ chunk: ArraySlice<UInt8>, at offset: Int64) -> Bool {
        matches(chunk, at: offset, version: 1)
    }

    /// Whether `chunk` is bytes `offset ..< offset + chunk.count` of `/chunked/N` and `/bytes/N`.
    static func isPattern(_ chunk: ArraySlice<UInt8>, at offset: Int64) -> Bool {
        matches(chunk, at: offset, version: 0)
    }

    private static func matches(_ chunk: ArraySlice<UInt8>, at offset: Int64, version: Int) -> Bool {
        let start = Int(offset)
        return Data(chunk) == TestServer.patternBody(start..<(start + chunk.count), version: version)
    }
}

/// An upload body made chunk by chunk as it is read: `count` bytes of the server's pattern
/// (version 7), in chunks of `chunkSize`.
struct GeneratedUpload: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let count: Int
    let chunkSize: Int

    /// The lowercase hex SHA-256 of the whole body.
    var sha256: String {
        SHA256.hash(data: TestServer.patternBody(0..<count, version: 7)).map { String(format: "%02x", $0) }.joined()
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
            guard offset < count else { return nil }
            let end = Swift.min(offset + chunkSize, count)
            defer { offset = end }
            return ArraySlice(TestServer.patternBody(offset..<end, version: 7))
        }
    }
}
