import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A cache store in a directory, one file per stored response, bounded by bytes, least recently
/// used out first.
///
/// The directory is private (``PrivateDirectory``): created `0700`, and an existing one refused
/// unless it is this user's own and no one else can write to it; files inside are reached with
/// `O_NOFOLLOW`. Its key (the file `key`, 32 random bytes, `0600`) names and seals every entry
/// (``CacheEntryFile``), so an entry planted or changed by anyone who cannot read the key is
/// deleted, never served; and an entry is served only for the URL, partition and variant it was
/// stored for.
///
/// A response to a request with a password (``CacheIdentity/carriesPassword``) is kept in
/// memory only: its partition is a keyed hash of the password, and the key lies in the directory.
///
/// Crash-safe: a response is written to a temporary file, flushed with `fsync` and renamed over
/// its entry, on the store's own queue, off every transport's loop; until then it is served from
/// memory. Opening reads each entry's metadata to rebuild the index; a directory whose marker
/// names another format is emptied of entries, never fatal.
///
/// Two ``HTTPCache``s in one process on one directory share one store (``shared(directory:limit:)``).
final class DiskCacheStore: CacheStore {
    /// An entry's state: on disk, waiting for its write, or kept in memory only.
    enum Slot {
        case file(String)
        case pending(String, StoredResponse)
        /// A response that must not reach the disk (``CacheIdentity/carriesPassword``): no file.
        case memoryOnly(StoredResponse)

        /// The entry's file, if it has or will have one.
        var fileName: String? {
            switch self {
            case .file(let name), .pending(let name, _): name
            case .memoryOnly: nil
            }
        }
    }

    /// The marker file naming the format of the directory's entries.
    static let markerName = "CurlBridgeCache.format"
    static let format = "2"
    /// The file holding the directory's key.
    static let keyName = "key"
    /// What temporary files' names start with.
    static let temporaryPrefix = ".tmp-"

    let directory: PrivateDirectory
    let keyedHash: KeyedHash
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
    ///
    /// - Throws: ``RequestError/Code/fileIO`` when the directory cannot be trusted (see
    ///   ``PrivateDirectory``) or its key cannot be read or made.
    init(directory: URL, limit: Int) throws(RequestError) {
        self.directory = try PrivateDirectory(opening: directory, role: "cache directory")
        self.limit = limit
        keyedHash = KeyedHash(key: try Self.key(in: self.directory))
        rebuildIndex()
    }

    // MARK: Opening

    /// The directory's key: read, or made (linked into place, so that two processes opening a
    /// new directory at once agree on one). A damaged key is replaced: the entries it sealed then
    /// fail their seal and go.
    private static func key(in directory: PrivateDirectory) throws(RequestError) -> [UInt8] {
        if let key = directory.read(keyName, limit: 64), key.count == KeyedHash.length { return Array(key) }
        let key = KeyedHash.randomBytes(KeyedHash.length)
        guard let temporary = write(Data(key), in: directory) else {
            throw RequestError(.fileIO, "cannot write the key of the cache directory \(directory.url.path)")
        }
        defer { directory.remove(temporary) }
        let linked = directory.link(temporary, to: keyName)
        if linked == nil { return key }
        if linked == .EEXIST {
            if let existing = directory.read(keyName, limit: 64), existing.count == KeyedHash.length { return Array(existing) }
            if directory.rename(temporary, to: keyName) == nil { return key }
        }
        throw RequestError(.fileIO, "cannot make the key of the cache directory \(directory.url.path)")
    }

    /// Reads every entry's metadata; deletes temporary files, damaged entries, and every entry of
    /// a directory whose marker names another format.
    private func rebuildIndex() {
        let names = directory.names
        let isCurrent = directory.read(Self.markerName, limit: 16) == Data(Self.format.utf8)
        for name in names where name.hasPrefix(Self.temporaryPrefix) { directory.remove(name) }
        var found: [(CacheEntryFile.Metadata, String, Date)] = []
        for name in names where name.hasSuffix(CacheEntryFile.suffix) {
            guard isCurrent, let size = directory.size(of: name), let prefix = directory.read(name, limit: 64 << 10),
                  let metadata = CacheEntryFile.metadata(prefix: prefix, fileSize: size),
                  // A file under another entry's name (moved or copied there) is no entry.
                  name == CacheEntryFile.name(url: metadata.url, partition: metadata.partition, variant: metadata.variant, keyedHash: keyedHash)
            else {
                directory.remove(name)
                continue
            }
            found.append((metadata, name, directory.modificationDate(of: name) ?? .distantPast))
        }
        if !isCurrent, let temporary = Self.write(Data(Self.format.utf8), in: directory) {
            if directory.rename(temporary, to: Self.markerName) != nil { directory.remove(temporary) }
        }
        found.sort { $0.2 < $1.2 }  // least recently written first: used last
        let evicted = index.withLock { index in
            for (metadata, name, _) in found {
                _ = index.insert(
                    .file(name), url: metadata.url, partition: metadata.partition, variant: metadata.variant, size: metadata.responseSize)
            }
            return index.evict(toFit: limit)  // a smaller limit than the last run's
        }
        for file in evicted.compactMap(\.fileName) { directory.remove(file) }
    }

    // MARK: CacheStore

    func variants(of url: String, partition: String) -> [StoredResponse] {
        let entries = index.withLock { $0.use(url, partition: partition) }
        return entries.compactMap { entry in
            switch entry.slot {
            case .pending(_, let response), .memoryOnly(let response): return response
            case .file(let name):
                if let data = directory.read(name), let response = CacheEntryFile.decode(data, keyedHash: keyedHash),
                   response.url == url, response.partition == partition, response.variant == entry.variant {
                    return response
                }
                // Damaged, forged, or removed by another process: forget it.
                index.withLock { _ = $0.remove(url) { $0.fileName == name } }
                directory.remove(name)
                return nil
            }
        }
    }

    func store(_ response: StoredResponse, persistent: Bool) {
        let name = CacheEntryFile.name(url: response.url, partition: response.partition, variant: response.variant, keyedHash: keyedHash)
        let (replaced, evicted) = index.withLock { index in
            let replaced = index.insert(
                persistent ? .pending(name, response) : .memoryOnly(response), url: response.url, partition: response.partition,
                variant: response.variant, size: response.size)
            return (replaced, index.evict(toFit: limit))
        }
        guard persistent else {
            // A file of the variant it replaces must not outlive it.
            let stale = ([replaced].compactMap { $0 } + evicted).compactMap(\.fileName)
            if !stale.isEmpty { writes.async { [self] in stale.forEach(directory.remove) } }
            return
        }
        writes.async { [self] in
            for file in evicted.compactMap(\.fileName) where file != name { directory.remove(file) }
            let written = write(response, to: name)
            index.withLock { index in
                // Only if this very response is still the entry (not replaced or removed meanwhile).
                guard index.remove(response.url, where: {
                    if case .pending(name, let pending) = $0 { return pending == response }
                    return false
                }) != nil else {
                    // Evicted or removed while it was written: its file must not outlive it.
                    if written { directory.remove(name) }
                    return
                }
                if written {
                    _ = index.insert(
                        .file(name), url: response.url, partition: response.partition, variant: response.variant, size: response.size)
                }
            }
        }
    }

    /// Writes `response` to a temporary file, flushes it and renames it to `name`.
    private func write(_ response: StoredResponse, to name: String) -> Bool {
        guard let data = try? CacheEntryFile.encode(response, keyedHash: keyedHash),
              let temporary = Self.write(data, in: directory) else { return false }
        guard directory.rename(temporary, to: name) == nil else {
            directory.remove(temporary)
            return false
        }
        return true
    }

    /// Writes `data` to a new temporary file in `directory` and flushes it; returns its name.
    private static func write(_ data: Data, in directory: PrivateDirectory) -> String? {
        guard case .success(let created) = directory.createTemporary(prefix: temporaryPrefix) else { return nil }
        let (name, descriptor) = (created.name, created.descriptor)
        let complete = data.withUnsafeBytes { writeAll($0, to: descriptor) == nil }
        let flushed = complete && fsync(descriptor) == 0
        close(descriptor)
        guard flushed else {
            directory.remove(name)
            return nil
        }
        return name
    }

    func remove(url: String) {
        let slots = index.withLock { $0.remove(url) }
        writes.async { [self] in
            for file in slots.compactMap(\.fileName) { directory.remove(file) }
        }
    }

    func removeAll() {
        let slots = index.withLock { $0.removeAll() }
        writes.async { [self] in
            for file in slots.compactMap(\.fileName) { directory.remove(file) }
        }
    }

    var totalSize: Int { index.withLock { $0.totalSize } }

    func flush() {
        writes.sync {}
    }
}
