@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// A disk cache's directory read by someone who should not learn the user's password (issue 35,
/// secrets at rest): a backup, a synced home directory, another program of the same user. The
/// partition of a credentialed response is an HMAC-SHA256 of the credential under the key — and
/// the key is the file `key` beside it. With both, each guess at the password costs two SHA-256
/// blocks: a dictionary attack offline, at the speed of an unsalted hash.
///
/// Crossed on `ddb4cb5`: the password was found in the dictionary. A response to a request with a
/// password is now kept in memory only: the directory holds nothing to test a guess against.
@Suite("HTTP cache attacked: a password guessed from the disk cache", .hangGuard, .serialized)
struct CacheSecretsAtRestAttackTests {
    /// A short list of common passwords, the victim's among them.
    static let dictionary = ["123456", "password", "letmein", "qwerty", "dragon", "hunter2", "monkey", "trustno1"]

    @Test("The directory holds no verifier an attacker can test passwords against offline")
    func noPasswordVerifierAtRest() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await Fixture.server()
        let page = CountedOrigin(server) { _, _ in CountedOrigin.answer("alice's page", [("Cache-Control", "public, max-age=600")]) }
        let (transport, cache) = try cachingTransport(server, storage: .disk(directory: directory, limit: 1 << 20))
        func url(_ password: String) -> String { "http://alice:\(password)@127.0.0.1:\(server.httpPort)\(page.path)" }

        _ = try await AsyncClient(transport: transport).send(.get(url("hunter2")))
        try await offThePool { cache.flush() }

        // The attacker's side: two files, and the library's own code run with the stolen key.
        let key = try Data(contentsOf: directory.appendingPathComponent(DiskCacheStore.keyName))
        let stolen = try FileManager.default.contentsOfDirectory(atPath: directory.path).compactMap { name -> String? in
            guard name.hasSuffix(CacheEntryFile.suffix) else { return nil }
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            return CacheEntryFile.metadata(prefix: data, fileSize: data.count)?.partition
        }
        // A transport with the library's defaults: what an attacker would assume.
        let configuration = Configuration()
        let partitioner = CachePartitioner(keyedHash: KeyedHash(key: Array(key)), trust: CacheTrust(configuration), cookies: nil)
        let found = try Self.dictionary.filter { guess in
            let prepared = try Request.get(url(guess)).prepared(with: RequestDefaults(configuration)).get()
            return stolen.contains(partitioner.request(for: prepared).partition ?? "")
        }

        #expect(stolen.isEmpty, "no entry of a request with a password is on disk")
        #expect(found.isEmpty, "the password \(found) was recovered from the cache directory by a dictionary attack")
        let again = try await AsyncClient(transport: transport).send(.get(url("hunter2")))
        #expect(again.cacheStatus == .hit && page.count == 1, "kept in memory, for this process")
    }
}
