@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// ``CacheLookup/start(_:now:)``: which requests are decided without the store, and which wait
/// for their stored variants (read off the loop). A pure value; no I/O.
@Suite("HTTP cache: which requests need the store read")
struct CacheLookupStartTests {
    private let now = Date(timeIntervalSince1970: 1_000_000)

    private func request(
        _ method: HTTPRequest.Method = .get, fields: HTTPFields = [:], policy: CachePolicy = .useProtocolCachePolicy,
        partition: String? = "p"
    ) -> CacheRequest {
        CacheRequest(method: method, url: "http://example/a", headerFields: fields, policy: policy, partition: partition)
    }

    @Test("A request that may use a stored response needs its partition's variants")
    func needsVariants() {
        #expect(CacheLookup.start(request(), now: now) == .needsVariants(partition: "p"))
        #expect(CacheLookup.start(request(.head), now: now) == .needsVariants(partition: "p"))
        #expect(CacheLookup.start(request(policy: .returnCacheDataElseLoad), now: now) == .needsVariants(partition: "p"))
        #expect(CacheLookup.start(request(policy: .returnCacheDataDontLoad), now: now) == .needsVariants(partition: "p"))
    }

    @Test("A request that cannot use one is decided at once, as decide says with nothing stored")
    func decidedAtOnce() {
        #expect(CacheLookup.start(request(.post), now: now) == .decided(.bypass))
        #expect(CacheLookup.start(request(partition: nil), now: now) == .decided(.bypass))
        #expect(CacheLookup.start(request(fields: [.cacheControl: "no-store"]), now: now) == .decided(.bypass))
        #expect(CacheLookup.start(request(policy: .reloadIgnoringCacheData), now: now) == .decided(.forward))
        #expect(CacheLookup.start(request(fields: [.range: "bytes=0-1"]), now: now) == .decided(.bypass))
        #expect(CacheLookup.start(request(policy: .returnCacheDataDontLoad, partition: nil), now: now) == .decided(.unavailable(.policy)))
    }

    @Test("Whatever it decides at once is what decide says with nothing stored")
    func sameDecisionAsReadingInline() {
        let requests = [request(), request(.post), request(partition: nil), request(policy: .reloadIgnoringCacheData),
                        request(policy: .returnCacheDataDontLoad), request(fields: [.cacheControl: "only-if-cached"])]
        for candidate in requests {
            let inline = CacheLookup.decide(candidate, stored: { [] }, now: now)
            switch CacheLookup.start(candidate, now: now) {
            case .decided(let decision): #expect(decision == inline)
            case .needsVariants: break
            }
        }
    }
}
