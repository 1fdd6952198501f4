import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A cache store in a directory, one file per stored response, bounded by bytes, least recently
/// used out first.
///
/// Crash-safe: a response is written to a temporary file (created `0600`), flushed with `fsync`
/// and renamed over its entry, on the store's own queue, off every transport's loop; until then it
/// is served from memory. A file that fails its length or checksum is deleted, never served.
/// Opening reads each entry's metadata to rebuild the index; a directory whose marker names
/// another format is emptied of entries, never fatal.
///
/// Two ``HTTPCache``s in one process on one directory share one store (``shared(directory:limit:)``).
final class DiskCacheStore: CacheStore {
    /// An entry's state: on disk, or waiting for its write.
    enum Slot {
        case file(String)
        case pending(String, StoredResponse)

        var fileName: String {
            switch self {
            case .file(let name), .pending(let name, _): name
            }
        }
    }

    /// The marker file naming the format of the directory's entries.
    static let markerName = "CurlBridgeCache.format"
    static let format = "1"

    let directory: URL
    private let limit: Int
    private let index = PosixLock(CacheIndex<Slot>())
    private let writes = DispatchQueue(label: "CurlBridge.DiskCacheStore")

    private static let openStores = PosixLock([String: WeakStore]())

    private struct WeakStore {
        weak var store: DiskCacheStore?
    }

    /// The store of `directory`, shared with every other cache of this process on it.
    static func shared(directory: URL, limit: Int) throws(RequestError) -> DiskCacheStore {
        let path = directory.standardizedFileURL.path
        return try openStores.withLock { (stores: inout [String: WeakStore]) throws(RequestError) -> DiskCacheStore in
            if let store = stores[path]?.store { return store }
            let store = try DiskCacheStore(directory: URL(fileURLWithPath: path, isDirectory: true), limit: limit)
            stores[path] = WeakStore(store: store)
            return store
        }
    }

    /// A store of its own on `directory` (tests open a second one, as a restarted process would).
    init(directory: URL, limit: Int) throws(RequestError) {
        self.directory = directory
        self.limit = limit
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw RequestError(.fileIO, "cannot create the cache directory \(directory.path): \(error.localizedDescription)")
        }
        rebuildIndex()
    }

    // MARK: Opening

    private func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Reads every entry's metadata; deletes torn temporary files, damaged entries, and every
    /// entry of a directory whose marker names another format.
    private func rebuildIndex() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let marker = path(Self.markerName)
        let isCurrent = (try? String(contentsOfFile: marker, encoding: .utf8)) == Self.format
        for name in names where name.hasPrefix(".tmp-") { unlink(path(name)) }
        var found: [(CacheEntryFile.Metadata, String, Date)] = []
        for name in names where name.hasSuffix(CacheEntryFile.suffix) {
            guard isCurrent, let (metadata, modified) = Self.readMetadata(path(name)) else {
                unlink(path(name))
                continue
            }
            found.append((metadata, name, modified))
        }
        if !isCurrent { try? Data(Self.format.utf8).write(to: URL(fileURLWithPath: marker), options: .atomic) }
        found.sort { $0.2 < $1.2 }  // least recently written first: used last
        let evicted = index.withLock { index in
            for (metadata, name, _) in found {
                _ = index.insert(.file(name), url: metadata.url, variant: metadata.variant, size: metadata.responseSize)
            }
            return index.evict(toFit: limit)  // a smaller limit than the last run's
        }
        for slot in evicted { unlink(path(slot.fileName)) }
    }

    /// An entry file's metadata and modification time, or `nil` when it is not a whole entry.
    private static func readMetadata(_ path: String) -> (CacheEntryFile.Metadata, Date)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = (attributes[.size] as? NSNumber)?.intValue,
              let prefix = try? handle.read(upToCount: 64 << 10),
              let metadata = CacheEntryFile.metadata(prefix: prefix, fileSize: size) else { return nil }
        return (metadata, attributes[.modificationDate] as? Date ?? .distantPast)
    }

    // MARK: CacheStore

    func variants(of url: String) -> [StoredResponse] {
        let slots = index.withLock { $0.use(url).map(\.slot) }
        return slots.compactMap { slot in
            switch slot {
            case .pending(_, let response): return response
            case .file(let name):
                if let data = FileManager.default.contents(atPath: path(name)), let response = CacheEntryFile.decode(data) {
                    return response
                }
                // Damaged, or removed by another process: forget it.
                index.withLock { _ = $0.remove(url) { $0.fileName == name } }
                unlink(path(name))
                return nil
            }
        }
    }

    func store(_ response: StoredResponse) {
        let name = CacheEntryFile.name(url: response.url, variant: response.variant)
        let evicted = index.withLock { index in
            _ = index.insert(.pending(name, response), url: response.url, variant: response.variant, size: response.size)
            return index.evict(toFit: limit)
        }
        writes.async { [self] in
            for slot in evicted where slot.fileName != name { unlink(path(slot.fileName)) }
            let written = write(response, to: name)
            index.withLock { index in
                // Only if this very response is still the entry (not replaced or removed meanwhile).
                guard let slot = index.remove(response.url, where: {
                    if case .pending(name, let pending) = $0 { return pending == response }
                    return false
                }) else {
                    // Evicted or removed while it was written: its file must not outlive it.
                    if written { unlink(path(name)) }
                    return
                }
                if written { _ = index.insert(.file(slot.fileName), url: response.url, variant: response.variant, size: response.size) }
            }
        }
    }

    /// Writes `response` to a temporary file, flushes it and renames it to `name`.
    private func write(_ response: StoredResponse, to name: String) -> Bool {
        guard let data = try? CacheEntryFile.encode(response) else { return false }
        let temporary = path(".tmp-\(UUID().uuidString)")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        let complete = data.withUnsafeBytes { writeAll($0, to: descriptor) == nil }
        let flushed = complete && fsync(descriptor) == 0
        close(descriptor)
        guard flushed, rename(temporary, path(name)) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    func remove(url: String) {
        let slots = index.withLock { $0.remove(url) }
        writes.async { [self] in
            for slot in slots { unlink(path(slot.fileName)) }
        }
    }

    func removeAll() {
        let slots = index.withLock { $0.removeAll() }
        writes.async { [self] in
            for slot in slots { unlink(path(slot.fileName)) }
        }
    }

    var totalSize: Int { index.withLock { $0.totalSize } }

    func flush() {
        writes.sync {}
    }
}
