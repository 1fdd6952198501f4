@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Testing

/// The memory and disk stores: least recently used out first, entries that survive a restart,
/// and a disk store that never serves a torn or damaged file and empties itself rather than fail.
@Suite("HTTP cache: memory and disk stores", .serialized)
struct CacheStoreTests {
    private func response(_ url: String, body: Int = 400, variant: [String: String] = [:]) -> StoredResponse {
        StoredResponse(
            url: url, partition: "p", status: .ok, headerFields: [.cacheControl: "max-age=60", .eTag: "\"1\""], httpVersion: .http1_1,
            body: Data(repeating: 0x61, count: body), requestTime: Date(timeIntervalSince1970: 1_000),
            responseTime: Date(timeIntervalSince1970: 1_001), variant: variant)
    }

    private func entryFiles(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(CacheEntryFile.suffix) }
    }

    @Test("An entry file round-trips; a cut or a changed byte fails to decode")
    func entryFileRoundTrip() throws {
        let stored = response("http://a/x", body: 1000, variant: ["accept-language": "en"])
        let key = KeyedHash.random()
        let data = try CacheEntryFile.encode(stored, keyedHash: key)

        #expect(CacheEntryFile.decode(data, keyedHash: key) == stored)
        #expect(CacheEntryFile.decode(data.dropLast(1), keyedHash: key) == nil)
        var changed = data
        changed[changed.count - 100] ^= 0x01
        #expect(CacheEntryFile.decode(changed, keyedHash: key) == nil)
        #expect(CacheEntryFile.decode(data, keyedHash: KeyedHash.random()) == nil, "sealed with another key")
    }

    @Test("The memory store evicts the least recently used first, by bytes")
    func memoryEviction() {
        let store = MemoryCacheStore(limit: 1_500)
        store.store(response("http://a/1"), persistent: true)
        store.store(response("http://a/2"), persistent: true)
        _ = store.variants(of: "http://a/1", partition: "p")  // used: /2 is now the oldest
        store.store(response("http://a/3"), persistent: true)
        store.store(response("http://a/4"), persistent: true)

        #expect(store.variants(of: "http://a/1", partition: "p").count == 1)
        #expect(store.variants(of: "http://a/2", partition: "p").isEmpty)
        #expect(store.totalSize <= 1_500)
    }

    @Test("Variants of one URL are kept apart and replace only themselves")
    func variantsAreKeptApart() {
        let store = MemoryCacheStore(limit: 1 << 20)
        store.store(response("http://a/v", variant: ["accept-language": "en"]), persistent: true)
        store.store(response("http://a/v", variant: ["accept-language": "fr"]), persistent: true)
        store.store(response("http://a/v", body: 10, variant: ["accept-language": "en"]), persistent: true)

        let variants = store.variants(of: "http://a/v", partition: "p")
        #expect(variants.count == 2)
        #expect(variants.first?.body.count == 10, "the replaced variant is the most recently used")
    }

    @Test("A disk store's entries survive a restart, in files only the owner can read")
    func diskEntriesSurviveARestart() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        first.store(response("http://a/1", variant: ["accept": "x"]), persistent: true)
        #expect(first.variants(of: "http://a/1", partition: "p").count == 1, "served from memory until written")
        try await offThePool { first.flush() }

        let restarted = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }

        #expect(restarted.variants(of: "http://a/1", partition: "p") == [response("http://a/1", variant: ["accept": "x"])])
        #expect(restarted.totalSize == first.totalSize)
        let name = try #require(entryFiles(directory).first)
        let permissions = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test("A torn entry, a damaged one and a leftover temporary file are deleted, never served")
    func tornAndDamagedEntries() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        first.store(response("http://a/torn"), persistent: true)
        first.store(response("http://a/damaged"), persistent: true)
        first.store(response("http://a/whole"), persistent: true)
        try await offThePool { first.flush() }
        let torn = directory.appendingPathComponent(CacheEntryFile.name(url: "http://a/torn", partition: "p", variant: [:], keyedHash: first.keyedHash))
        let damaged = directory.appendingPathComponent(CacheEntryFile.name(url: "http://a/damaged", partition: "p", variant: [:], keyedHash: first.keyedHash))
        let tornData = try Data(contentsOf: torn)
        try tornData.prefix(tornData.count - 20).write(to: torn)
        var damagedData = try Data(contentsOf: damaged)
        damagedData[damagedData.count - 50] ^= 0xff
        try damagedData.write(to: damaged)
        try Data("half".utf8).write(to: directory.appendingPathComponent(".tmp-crashed"))

        let restarted = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }

        #expect(restarted.variants(of: "http://a/torn", partition: "p").isEmpty)
        #expect(restarted.variants(of: "http://a/damaged", partition: "p").isEmpty)
        #expect(restarted.variants(of: "http://a/whole", partition: "p").count == 1)
        try await offThePool { restarted.flush() }
        #expect(entryFiles(directory).count == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(".tmp-crashed").path))
    }

    @Test("A store in another format is emptied of its entries, and other files are left alone")
    func corruptStoreIsEmptied() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        first.store(response("http://a/1"), persistent: true)
        try await offThePool { first.flush() }
        try Data("garbage".utf8).write(to: directory.appendingPathComponent(DiskCacheStore.markerName))
        try Data("mine".utf8).write(to: directory.appendingPathComponent("notes.txt"))

        let reopened = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }

        #expect(reopened.variants(of: "http://a/1", partition: "p").isEmpty)
        #expect(entryFiles(directory).isEmpty)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("notes.txt").path))
        reopened.store(response("http://a/2"), persistent: true)
        try await offThePool { reopened.flush() }
        #expect(try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }.variants(of: "http://a/2", partition: "p").count == 1)
    }

    @Test("Eviction from a disk store deletes the evicted files")
    func diskEviction() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await offThePool { try DiskCacheStore(directory: directory, limit: 1_500) }
        for index in 1...4 { store.store(response("http://a/\(index)"), persistent: true) }
        try await offThePool { store.flush() }

        #expect(entryFiles(directory).count == store.totalSize / response("http://a/1").size)
        #expect(store.totalSize <= 1_500)
        #expect(store.variants(of: "http://a/4", partition: "p").count == 1)
    }

    @Test("Two caches of one process on one directory share a store: what one transport stores, the other serves")
    func twoTransportsOneDirectory() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await Fixture.server()
        let origin = CountedOrigin(server) { n, _ in CountedOrigin.answer("\(n)", [("Cache-Control", "max-age=60")]) }
        let (first, firstCache) = try cachingTransport(server, storage: .disk(directory: directory, limit: 1 << 20))
        let (second, secondCache) = try cachingTransport(server, tls: true, storage: .disk(directory: directory, limit: 1 << 20))
        let path = server.httpURL.absoluteString + origin.path.dropFirst()

        let stored = try await AsyncClient(transport: first).send(.get(path))
        let served = try await AsyncClient(transport: second).send(.get(path))

        #expect(firstCache.store === secondCache.store)
        #expect(stored.cacheStatus == .miss && served.cacheStatus == .hit)
        #expect(origin.count == 1)
    }

    @Test("A response larger than an eighth of the limit is not stored")
    func largeResponsesAreNotStored() async throws {
        let server = try await Fixture.server()
        let origin = CountedOrigin(server) { n, _ in CountedOrigin.answer(String(repeating: "\(n)", count: 2_000), [("Cache-Control", "max-age=60")]) }
        let (transport, cache) = try cachingTransport(server, storage: .memory(limit: 8_000))
        let client = AsyncClient(transport: transport)

        _ = try await client.send(.get(String(origin.path.dropFirst())))
        let again = try await client.send(.get(String(origin.path.dropFirst())))

        #expect(again.cacheStatus == .miss && origin.count == 2)
        #expect(cache.currentSize == 0)
    }
}
