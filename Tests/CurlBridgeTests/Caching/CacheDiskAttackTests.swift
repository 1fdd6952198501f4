@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A disk cache's directory attacked as another local user, or a damaged disk, would: an entry
/// put under another URL's name, an entry sealed without the key, values that once trapped the
/// process, a directory anyone can write to, a link planted among the entries.
@Suite("HTTP cache: a disk store against hostile files", .serialized)
struct CacheDiskAttackTests {
    private func response(_ url: String, body: String) -> StoredResponse {
        StoredResponse(
            url: url, partition: "p", status: .ok, headerFields: [.cacheControl: "max-age=60"], httpVersion: .http1_1,
            body: Data(body.utf8), requestTime: Date(timeIntervalSince1970: 1_000), responseTime: Date(timeIntervalSince1970: 1_001),
            variant: [:])
    }

    private func file(_ store: DiskCacheStore, _ url: String) -> URL {
        store.directory.url.appendingPathComponent(CacheEntryFile.name(url: url, partition: "p", variant: [:], keyedHash: store.keyedHash))
    }

    @Test("An entry put in place of another URL's is not served for that URL")
    func anEntryUnderAnotherNameIsNotServed() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        store.store(response("https://evil.example/x", body: "attacker's"), persistent: true)
        store.store(response("https://bank.example/api", body: "the bank's"), persistent: true)
        try await offThePool { store.flush() }

        try Data(contentsOf: file(store, "https://evil.example/x")).write(to: file(store, "https://bank.example/api"))

        #expect(store.variants(of: "https://bank.example/api", partition: "p").isEmpty)
        let reopened = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        #expect(reopened.variants(of: "https://bank.example/api", partition: "p").isEmpty)
        #expect(reopened.variants(of: "https://evil.example/x", partition: "p").map(\.body) == [Data("attacker's".utf8)])
    }

    @Test("An entry sealed without the directory's key is never served, at the right name or after a restart")
    func aForgedEntryIsNotServed() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        store.store(response("https://bank.example/api", body: "the bank's"), persistent: true)
        try await offThePool { store.flush() }

        let forged = try CacheEntryFile.encode(response("https://bank.example/api", body: "forged"), keyedHash: KeyedHash.random())
        try forged.write(to: file(store, "https://bank.example/api"))

        #expect(store.variants(of: "https://bank.example/api", partition: "p").isEmpty)
        let reopened = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        #expect(reopened.variants(of: "https://bank.example/api", partition: "p").isEmpty)
    }

    /// An entry file with `metadata` and `body`, sealed with `key`: what someone holding the key
    /// (or a disk returning garbage that happens to seal) could write.
    private func entry(_ metadata: CacheEntryFile.Metadata, body: Data, key: KeyedHash) throws -> Data {
        let json = try JSONEncoder().encode(metadata)
        var data = Data(CacheEntryFile.magic)
        withUnsafeBytes(of: UInt32(json.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(json)
        data.append(body)
        data.append(contentsOf: CacheEntryFile.seal(data, keyedHash: key))
        return data
    }

    static let hostileValues: [String] = ["status 1000", "status -1", "negative body length", "huge body length", "time 1e300", "version 300.1", "bad field name"]

    @Test("Values no response can have are refused, never trap the process", arguments: hostileValues)
    func hostileValuesAreRefused(value: String) async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        let url = "https://bank.example/api"
        var metadata = CacheEntryFile.metadata(of: response(url, body: "12345"))
        switch value {
        case "status 1000": metadata.status = 1000
        case "status -1": metadata.status = -1
        case "negative body length": metadata.bodyLength = -5
        case "huge body length": metadata.bodyLength = .max
        case "time 1e300": metadata.responseTime = 1e300
        case "version 300.1": metadata.version = [300, 1]
        default: metadata.fields.append(["bad name", "x"])
        }
        let data = try entry(metadata, body: Data("12345".utf8), key: store.keyedHash)

        #expect(CacheEntryFile.decode(data, keyedHash: store.keyedHash) == nil)
        try data.write(to: file(store, url))
        let reopened = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        #expect(reopened.variants(of: url, partition: "p").isEmpty)
    }

    @Test("A directory others can write to, or a link in its place, is refused")
    func anUntrustedDirectoryIsRefused() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let shared = scratch.file("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        chmod(shared.path, 0o777)
        let writable = try #require(throws: RequestError.self) { try HTTPCache(.disk(directory: shared, limit: 1 << 20)) }
        #expect(writable.code == .fileIO && writable.message.contains("writable by its group or others"))

        let own = scratch.file("own")
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        symlink(own.path, scratch.file("link").path)
        #expect(throws: RequestError.self) { try HTTPCache(.disk(directory: scratch.file("link"), limit: 1 << 20)) }
    }

    @Test("A link planted as an entry is not followed: its target is neither read nor changed")
    func aPlantedLinkIsNotFollowed() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.file("cache")
        let store = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        let url = "https://bank.example/api"
        let victim = scratch.file("victim")
        let planted = try CacheEntryFile.encode(response(url, body: "planted"), keyedHash: store.keyedHash)
        try planted.write(to: victim)
        symlink(victim.path, file(store, url).path)

        let reopened = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 20) }
        #expect(reopened.variants(of: url, partition: "p").isEmpty)
        reopened.store(response(url, body: "fresh"), persistent: true)
        try await offThePool { reopened.flush() }
        #expect(try Data(contentsOf: victim) == planted, "the link's target is untouched")
    }
}
