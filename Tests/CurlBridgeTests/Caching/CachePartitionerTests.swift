@testable import CurlBridge
import Foundation
import Testing

/// Whose a request is and under which trust, as a value: which differences between two
/// requests or two transports keep their stored responses apart, and which do not.
@Suite("HTTP cache: partitions by credentials and trust")
struct CachePartitionerTests {
    private let key = KeyedHash(key: Array(repeating: 1, count: 32))

    private func partition(_ request: Request, _ adjust: (inout Configuration) -> Void = { _ in }) throws -> String? {
        var configuration = Configuration()
        adjust(&configuration)
        let prepared = try request.prepared(with: RequestDefaults(configuration)).get()
        return CachePartitioner(keyedHash: key, trust: CacheTrust(configuration), cookies: nil).request(for: prepared).partition
    }

    @Test("Every credential curl sends makes its own partition, and the same one twice makes the same")
    func credentials() throws {
        let url = "https://api.example/me"
        let anonymous = try partition(.get(url))
        let carriers: [Request] = [
            .get(url).basicAuth(username: "alice", password: "a"), .get(url).basicAuth(username: "bob", password: "a"),
            .get(url).bearerToken("t1"), .get(url).bearerToken("t2"), .get(url).header("Cookie", "s=1"),
            .get(url).header("Proxy-Authorization", "Basic x"),
            .get(url).credential(.challenged(username: "alice", password: "a", schemes: .any)),
            .get(url).credential(.challenged(username: "alice", password: "b", schemes: .any)),
            .get("https://alice:a@api.example/me"), .get("https://alice:b@api.example/me"),
        ]
        let partitions = try carriers.map { try partition($0) }
        #expect(Set(partitions + [anonymous]).count == carriers.count + 1)
        #expect(try partition(.get(url).bearerToken("t1")) == partitions[2])
        #expect(try partition(.get(url).header("Accept", "x")) == anonymous, "a header that is no credential")
        #expect(try partition(.get(url)) { $0.credentials = [Credential.Origin(url)!: .bearer("t1")] } == partitions[2],
                "the configuration's credential is the request's")
    }

    @Test("Every difference of trust makes its own partition for https")
    func trust() throws {
        let url = "https://api.example/me"
        let base = try partition(.get(url))
        let pin = try Pinning.publicKeys(["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="])
        let bundle = try CertificateBundle(pem: "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n")
        let variations: [(inout Configuration) -> Void] = [
            { $0.tls.disablesCertificateVerification = true },
            { $0.tls.trustRoots = .replacingSystem(with: bundle) },
            { $0.tls.trustRoots = .systemAdding(bundle) },
            { $0.tls.pins["api.example"] = pin },
            { $0.tls.pins["other.example"] = pin },
            { $0.tls.minimumVersion = .tls1_3 },
            { $0.tls.clientIdentity = .pem(certificate: "c", privateKey: "k") },
            { $0.proxy = .through(.http(host: "proxy", port: 3128)) },
            { $0.proxy = .through(.http(host: "proxy", port: 3128, credentials: .init(user: "u", password: "p"))) },
            { $0.unixSocketPath = "/run/x.sock" },
            { $0.localBinding = .interface("lo") },
        ]
        let partitions = try variations.map { try partition(.get(url), $0) }
        #expect(Set(partitions + [base]).count == variations.count + 1)
        #expect(try partition(.get(url).pinning(pin)) != base, "a request's own pins")
        #expect(try partition(.get(url)) { $0.tls.disablesCertificateVerification = true } == partitions[0], "the same trust twice")
    }

    @Test("Plain http is not fetched under TLS: its partition ignores the TLS configuration, not the route")
    func plainHTTP() throws {
        let url = "http://api.example/me"
        let base = try partition(.get(url))
        #expect(try partition(.get(url)) { $0.tls.disablesCertificateVerification = true } == base)
        #expect(try partition(.get(url)) { $0.tls.pins["api.example"] = try? .publicKeys(["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]) } == base)
        #expect(try partition(.get(url)) { $0.proxy = .through(.http(host: "proxy", port: 3128)) } != base)
    }

    @Test("The partition and the key leave user info out of the URL and mark the request credentialed")
    func userInfo() throws {
        let prepared = try Request.get("https://alice:a@api.example/me#x").prepared(with: RequestDefaults(Configuration())).get()
        let request = CachePartitioner(keyedHash: key, trust: CacheTrust(Configuration()), cookies: nil).request(for: prepared)
        #expect(request.url == "https://api.example/me" && request.isCredentialed)
        #expect(request.partition?.contains("alice") == false && request.partition?.count == 64)
    }

    @Test("Sent as looked up: always when the cookies are not reported, never when reported but none were sent, else when they make the partition")
    func sentAsLookedUp() throws {
        let prepared = try Request.get("http://example/a").header("Cookie", "s=1; t=2").prepared(with: RequestDefaults(Configuration())).get()
        let partitioner = CachePartitioner(keyedHash: key, trust: CacheTrust(Configuration()), cookies: nil)
        let request = partitioner.request(for: prepared)
        #expect(partitioner.sentAsLookedUp(request, reportsSentCookies: false, sentCookieLines: nil))
        #expect(partitioner.sentAsLookedUp(request, reportsSentCookies: false, sentCookieLines: ["other=1"]))
        #expect(!partitioner.sentAsLookedUp(request, reportsSentCookies: true, sentCookieLines: nil))
        #expect(partitioner.sentAsLookedUp(request, reportsSentCookies: true, sentCookieLines: ["t=2", "s=1"]), "the same cookies, in another order")
        #expect(!partitioner.sentAsLookedUp(request, reportsSentCookies: true, sentCookieLines: ["s=1; t=2; u=3"]))
        #expect(!partitioner.sentAsLookedUp(request, reportsSentCookies: true, sentCookieLines: []))
    }
}
