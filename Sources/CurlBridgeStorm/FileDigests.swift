import Crypto
import CurlBridgeTestServer
import Foundation

/// SHA-256 digests, as lowercase hex, of what `queue-crash` expects and of what it finds on disk.
enum FileDigests {
    /// The digest of the `size` bytes of version `version` of `/resource/N`, made locally: the
    /// pattern repeats every 251 bytes, so a block of 251 × 4096 bytes is made once and hashed as
    /// often as it fits, then the rest.
    static func resource(size: Int, version: Int) -> String {
        let block = TestServer.patternBody(0..<(251 * 4096), version: version)
        var hasher = SHA256()
        for _ in 0..<(size / block.count) { hasher.update(data: block) }
        hasher.update(data: block.prefix(size % block.count))
        return hex(hasher.finalize())
    }

    /// The digest of the file at `url` and its length, read in 4 MiB blocks; `nil` when it
    /// cannot be read.
    static func file(_ url: URL) -> (sha256: String, bytes: Int64)? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        var bytes: Int64 = 0
        do {
            // `nil` or empty at the end of the file.
            while let block = try handle.read(upToCount: 4 << 20), !block.isEmpty {
                hasher.update(data: block)
                bytes += Int64(block.count)
            }
        } catch {
            return nil
        }
        return (hex(hasher.finalize()), bytes)
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
