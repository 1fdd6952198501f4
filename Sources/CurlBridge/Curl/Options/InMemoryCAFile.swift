#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CCurl

/// A CA bundle in an anonymous, sealed in-memory file (`memfd_create`) that curl opens by path,
/// `/proc/self/fd/N`.
///
/// curl caches the parsed certificate store of a CA *file* for every later connection of its multi
/// handle, but parses an in-memory bundle (`CURLOPT_CAINFO_BLOB`) again for each one. A
/// ``TrustRoots/systemAdding(_:)`` bundle (the system's 140-odd CAs and yours) given as a file
/// therefore costs its parse once per transport rather than once per connection. The file never
/// touches a disk, is closed on exec, and is sealed: neither this process nor another can change
/// it after it is written.
final class InMemoryCAFile: Sendable {
    /// The path curl is given.
    let path: String
    /// The descriptor that keeps the file alive; closed with this object.
    private let descriptor: Int32

    /// Writes `contents` to a new in-memory file; `nil` where the kernel or `/proc` does not allow
    /// it (the caller then hands curl the bundle in memory).
    init?(contents: Data) {
        let descriptor = ccurl_memfd_create("curlbridge-ca-bundle")
        guard descriptor >= 0 else { return nil }
        let path = "/proc/self/fd/\(descriptor)"
        guard contents.withUnsafeBytes({ writeAll($0, to: descriptor) }) == nil, ccurl_seal_contents(descriptor) == 0,
              access(path, R_OK) == 0
        else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        close(descriptor)
    }
}
