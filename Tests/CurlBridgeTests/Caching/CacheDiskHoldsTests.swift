@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Attacks on a disk store that hold (issue 35, after the private directory), kept so that they
/// go on holding: a damaged or replaced `key`, and two writers and a remover on one URL at once.
@Suite("HTTP cache: a disk store's key and its concurrency hold", .hangGuard, .serialized)
struct CacheDiskHoldsTests {
    private func response(_ url: String, body: String, partition: String = "p") -> StoredResponse {
        StoredResponse(
            url: url, partition: partition, status: .ok, headerFields: [.cacheControl: "max-age=60"], httpVersion: .http1_1,
            body: Data(body.utf8), requestTime: Date(timeIntervalSince1970: 1_000), responseTime: Date(timeIntervalSince1970: 1_001),
            variant: [:])
    }

    static let damagedKeys = ["empty", "short", "long", "link to another file"]

    @Test("A damaged key, or a link in its place, is replaced: what it sealed is never served, the link's target is untouched", arguments: damagedKeys)
    func aDamagedKeyIsReplaced(damage: String) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.file("cache")
        let url = "https://bank.example/api"
        let store = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        store.store(response(url, body: "sealed with the old key"), persistent: true)
        try await offThePool { store.flush() }
        let keyFile = directory.appendingPathComponent(DiskCacheStore.keyName)
        let planted = scratch.file("planted-key")
        try FileManager.default.removeItem(at: keyFile)
        switch damage {
        case "empty": try Data().write(to: keyFile)
        case "short": try Data(repeating: 7, count: KeyedHash.length - 1).write(to: keyFile)
        case "long": try Data(repeating: 7, count: 100).write(to: keyFile)
        default:
            // A key someone else chose, reached through a link: never read, never written through.
            try Data(repeating: 7, count: KeyedHash.length).write(to: planted)
            symlink(planted.path, keyFile.path)
        }

        let reopened = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }

        #expect(reopened.variants(of: url, partition: "p").isEmpty)
        let key = try #require(reopened.directory.read(DiskCacheStore.keyName))
        #expect(key.count == KeyedHash.length && key != Data(repeating: 7, count: KeyedHash.length))
        if damage == "link to another file" {
            #expect(try Data(contentsOf: planted) == Data(repeating: 7, count: KeyedHash.length))
        }
    }

    @Test("A directory in place of the key is an error, not a trap")
    func aDirectoryInPlaceOfTheKeyIsAnError() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.file("cache")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: directory.appendingPathComponent(DiskCacheStore.keyName), withIntermediateDirectories: false)

        let error = try #require(throws: RequestError.self) { try HTTPCache(.disk(directory: directory, limit: 1 << 20)) }
        #expect(error.code == .fileIO)
    }

    @Test("Two writers of one variant and a remover at once: no trap, the bytes counted are the bytes kept, no file outlives its entry")
    func writersAndARemoverAtOnce() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.file("cache")
        let store = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        let url = "https://shared.example/page"
        let rounds = 300
        let served = PosixLock<Set<String>>([])

        await withTaskGroup(of: Void.self) { group in
            for writer in ["a", "b"] {
                group.addTask {
                    _ = await onWorkerThread {
                        for round in 0..<rounds { store.store(self.response(url, body: "\(writer)\(round)"), persistent: round % 3 != 0) }
                    }
                }
            }
            group.addTask {
                _ = await onWorkerThread {
                    for _ in 0..<rounds {
                        store.remove(url: url)
                        let bodies = store.variants(of: url, partition: "p").map { String(decoding: $0.body, as: UTF8.self) }
                        served.withLock { $0.formUnion(bodies) }
                    }
                }
            }
        }
        try await offThePool { store.flush() }

        let left = store.variants(of: url, partition: "p")
        #expect(left.count <= 1, "one variant, one entry")
        #expect(store.totalSize == left.reduce(0) { $0 + $1.size })
        let entries = store.directory.names.filter { $0.hasSuffix(CacheEntryFile.suffix) }
        // Every third round is stored in memory only (a password's response): no file for it.
        let persistent = left.filter { (Int(String(decoding: $0.body, as: UTF8.self).dropFirst()) ?? 0) % 3 != 0 }
        #expect(entries.count == persistent.count, "\(entries.count) entry files for \(persistent.count) entries kept on disk")
        #expect(served.withLock { $0 }.allSatisfy { $0.first == "a" || $0.first == "b" })
    }
}
