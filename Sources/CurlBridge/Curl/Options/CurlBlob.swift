#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Bytes handed to curl by reference (`CURL_BLOB_NOCOPY`), so that a transport's CA bundle — the
/// whole system store when CAs are added to it, some 200 KB — is not copied into every request.
///
/// Not `Sendable`: made with its transport's engine and used by it, on the loop. The bytes are
/// written once, in `init`, and freed when the last reference goes; every easy handle given them
/// keeps a reference (``CurlEasyHandle/set(_:retaining:)``) for as long as curl may read them.
final class CurlBlob {
    /// The bytes; immutable after `init`.
    let bytes: UnsafeMutableRawBufferPointer
    /// The number of bytes.
    let count: Int

    /// A blob holding a copy of `data`.
    init(_ data: Data) {
        bytes = .allocate(byteCount: max(data.count, 1), alignment: 1)
        data.copyBytes(to: bytes.bindMemory(to: UInt8.self), count: data.count)
        count = data.count
    }

    deinit {
        bytes.deallocate()
    }
}
