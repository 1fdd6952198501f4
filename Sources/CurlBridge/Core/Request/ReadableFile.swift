#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The check every file a request sends must pass before anything is sent.
enum ReadableFile {
    /// Why the file at `url` cannot be sent, or `nil`: it must be a `file:` URL of an existing,
    /// readable regular file (a device such as `/dev/zero` would never end).
    ///
    /// - Parameter role: How the message names the file, e.g. `"multipart file"`.
    static func problem(at url: URL, role: String) -> String? {
        let type = try? FileManager.default.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType
        guard url.isFileURL, type == .typeRegular else {
            return "\(role) \(url.path.debugDescription) does not exist or is not a regular file"
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            return "\(role) \(url.path.debugDescription) cannot be read"
        }
        return nil
    }
}
