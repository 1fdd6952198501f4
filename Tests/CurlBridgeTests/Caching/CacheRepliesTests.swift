@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// The responses the cache answers with in place of a transfer, as values: the `Age` of a hit, the
/// synthesised `304` and `504`, a revalidation's fields, and a `HEAD`'s play.
@Suite("HTTP cache: the replies it builds")
struct CacheRepliesTests {
    private typealias F = CacheExchangeFixture

    @Test("A served response carries the Age its freshness gives, in place of any stored one")
    func age() {
        let stored = F.stored(age: 10, extra: [HTTPField.Name("Age")!: "3"])
        let fields = CacheReplies.servedFields(stored, now: F.now)
        #expect(fields[values: HTTPField.Name("Age")!] == ["13"])
        #expect(fields[.eTag] == "\"v1\"")
    }

    @Test("The synthesised 304 has the stored fields but Content-Length, no body, and is received now")
    func notModified() {
        let reply = CacheReplies.notModified(F.stored(age: 10), now: F.now)
        #expect(reply.status == .notModified && reply.body.isEmpty)
        #expect(reply.headerFields[.contentLength] == nil && reply.headerFields[.eTag] == "\"v1\"")
        #expect(reply.requestTime == F.now && reply.responseTime == F.now)
    }

    @Test("The 504 of only-if-cached declares an empty body")
    func gatewayTimeout() {
        let request = F.request(F.prepared(.get(F.url).header("Cache-Control", "only-if-cached")))
        let reply = CacheReplies.gatewayTimeout(request, now: F.now)
        #expect(reply.status == .gatewayTimeout && reply.body.isEmpty && reply.headerFields == [.contentLength: "0"])
        #expect(reply.url == F.url && reply.partition == "p")
    }

    @Test("A 304 updates the stored fields, marks the metrics revalidated, and shows its Set-Cookie to the caller only")
    func revalidated() {
        let notModified = F.response(.notModified, [.cacheControl: "max-age=120", .setCookie: "s=1", .contentLength: "0"])
        let (stored, fields, metrics) = CacheReplies.revalidated(
            F.stored(age: 120), by: notModified, requestTime: F.now, responseTime: F.now + 1)
        #expect(stored.headerFields[.cacheControl] == "max-age=120" && stored.headerFields[.setCookie] == nil)
        #expect(stored.headerFields[.contentLength] == String(F.body.count), "a 304's Content-Length is not the body's")
        #expect(stored.requestTime == F.now && stored.responseTime == F.now + 1)
        #expect(fields[.setCookie] == "s=1" && fields[.cacheControl] == "max-age=120")
        #expect(metrics.cacheStatus == .revalidated)
    }

    @Test("The 304's cookies are added to the caller's fields only up to the most a response holds")
    func revalidatedCookiesAreCapped() {
        let many = HTTPFields((0..<(StoredResponse.maximumFieldCount - 4)).map { HTTPField(name: HTTPField.Name("X-\($0)")!, value: "v") })
        let stored = F.stored(age: 120, body: Data(), extra: many)  // one field short of the most
        let notModified = F.response(.notModified, [.setCookie: "a=1", .setCookie: "b=2", .setCookie: "c=3"])
        let (_, fields, _) = CacheReplies.revalidated(stored, by: notModified, requestTime: F.now, responseTime: F.now)
        #expect(fields.count == StoredResponse.maximumFieldCount)
        #expect(fields[values: .setCookie] == ["a=1"])
    }

    @Test("A HEAD plays the stored head with no body; a GET plays the body, and both end with the metrics given")
    func headPlaysNoBody() {
        let stored = F.stored(age: 10)
        let head = CachePlay(stored, fields: stored.headerFields, metrics: .fromCache(.hit), answering: F.prepared(.head(F.url)))
        let get = CachePlay(stored, fields: stored.headerFields, metrics: .fromCache(.hit), answering: F.prepared(.get(F.url)))
        #expect(head.playback.body.isEmpty && get.playback.body == F.body)
        #expect(head.response.requestMethod == .head && head.response.metrics.cacheStatus == .hit)
        #expect(get.playback.head.cacheStatus == .hit && get.response.status == .ok)
        #expect(get.progress(wanted: true)?.expectedBytesToReceive == Int64(F.body.count) && get.progress(wanted: false) == nil)
    }
}
