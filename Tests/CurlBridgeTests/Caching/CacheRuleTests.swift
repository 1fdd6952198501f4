@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// The cache's decisions as pure values, without I/O: dates, directives, freshness, lookup and
/// admission, against RFC 9110 and 9111.
@Suite("HTTP cache: rules as values")
struct CacheRuleTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func stored(_ fields: HTTPFields, status: HTTPResponse.Status = .ok, age: TimeInterval = 0) -> StoredResponse {
        let received = Self.now.addingTimeInterval(-age)
        var fields = fields
        if fields[.date] == nil { fields[.date] = HTTPDate.format(received) }
        return StoredResponse(
            url: "http://a/x", partition: "", status: status, headerFields: fields, httpVersion: .http1_1, body: Data("x".utf8),
            requestTime: received, responseTime: received, variant: [:])
    }

    private func request(_ fields: HTTPFields = [:], method: HTTPRequest.Method = .get, policy: CachePolicy = .useProtocolCachePolicy) -> CacheRequest {
        CacheRequest(method: method, url: "http://a/x#fragment", headerFields: fields, policy: policy)
    }

    private func decide(_ request: CacheRequest, _ stored: [StoredResponse]) -> CacheLookup {
        CacheLookup.decide(request, stored: { stored }, now: Self.now)
    }

    @Test("HTTP dates: the three forms parse to one moment; IMF-fixdate is what is written; only printable ASCII is a date")
    func httpDates() {
        let moment = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == moment)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == moment)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == moment)
        #expect(HTTPDate.format(moment) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Self.now) == "Tue, 14 Nov 2023 22:13:20 GMT")
        for invalid in ["Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "0", "", "-1", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT", "tomorrow",
                        "Dié, 06 Nov 1994 08:49:37 GMT", "Su\r\n, 06 Nov 1994 08:49:37 GMT", "S\tn Nov  6 08:49:37 1994"] {
            #expect(HTTPDate.parse(invalid) == nil, "\(invalid)")
        }
    }

    @Test("Cache-Control: case, quotes, spaces and several lines; the first max-age counts; an invalid one is 0")
    func directives() {
        let control = CacheControl([.cacheControl: "Max-Age=\"60\", no-cache=\"Set-Cookie, X\"", .cacheControl: " private ,max-age=5,MAX-STALE"])
        #expect(control.maxAge == 60)
        #expect(control.noCache && control.isPrivate)
        #expect(control.maxStale == .some(nil))
        #expect(CacheControl([.cacheControl: "max-age=abc"]).maxAge == 0)
        #expect(CacheControl([.cacheControl: "max-age=99999999999999999999"]).maxAge == Int(Int32.max))
        #expect(CacheControl([.cacheControl: "min-fresh=-1, max-stale=10"]).minFresh == nil)
        #expect(CacheControl([.cacheControl: "min-fresh=-1, max-stale=10"]).maxStale == .some(10))
    }

    @Test("Freshness: max-age before Expires, Expires from Date, heuristics only from Last-Modified and allowed statuses")
    func freshness() {
        let expires = HTTPDate.format(Self.now.addingTimeInterval(100))
        let lastModified = HTTPDate.format(Self.now.addingTimeInterval(-10_000))
        #expect(CacheFreshness(of: stored([.cacheControl: "max-age=30", .init("Expires")!: expires]), now: Self.now).lifetime == 30)
        #expect(CacheFreshness(of: stored([.init("Expires")!: expires]), now: Self.now).lifetime == 100)
        #expect(CacheFreshness(of: stored([.init("Expires")!: "0"]), now: Self.now).isFresh == false)
        let heuristic = CacheFreshness(of: stored([.init("Last-Modified")!: lastModified]), now: Self.now)
        #expect(heuristic.lifetime == 1_000 && heuristic.isHeuristic)
        #expect(CacheFreshness(of: stored([.init("Last-Modified")!: lastModified], status: .created), now: Self.now).lifetime == 0)
        #expect(CacheFreshness(of: stored([.init("Last-Modified")!: lastModified, .cacheControl: "public"], status: .created), now: Self.now).lifetime == 1_000)
    }

    @Test("Age: the Age field and the time stored add up; a Date in the past counts")
    func age() {
        #expect(CacheFreshness(of: stored([.init("Age")!: "50"], age: 10), now: Self.now).age == 60)
        let old = stored([.date: HTTPDate.format(Self.now.addingTimeInterval(-100))])
        #expect(CacheFreshness(of: old, now: Self.now).age == 100)
        #expect(CacheFreshness(of: stored([.init("Age")!: "x"]), now: Self.now).age == 0)
        #expect(CacheFreshness(of: stored([.init("Age")!: "7200, 0"]), now: Self.now).age == 7200)
        #expect(CacheFreshness(of: stored([.init("Age")!: "7200", .init("Age")!: "0"]), now: Self.now).age == 7200)
    }

    @Test("Lookup: fresh serves, stale validates with both validators, nothing stored forwards")
    func lookup() {
        let fresh = stored([.cacheControl: "max-age=60", .eTag: "\"e\"", .init("Last-Modified")!: "Sun, 06 Nov 1994 08:49:37 GMT"], age: 10)
        let stale = stored([.cacheControl: "max-age=5", .eTag: "\"e\"", .init("Last-Modified")!: "Sun, 06 Nov 1994 08:49:37 GMT"], age: 10)
        #expect(decide(request(), [fresh]) == .serve(fresh, .hit))
        #expect(decide(request(), [stale]) == .validate(stale, conditions: [
            HTTPField(name: .ifNoneMatch, value: "\"e\""), HTTPField(name: .ifModifiedSince, value: "Sun, 06 Nov 1994 08:49:37 GMT"),
        ]))
        #expect(decide(request(), [stored([.cacheControl: "max-age=5"], age: 10)]) == .forward, "stale without a validator")
        #expect(decide(request(), []) == .forward)
        #expect(decide(request(method: .post), [fresh]) == .bypass)
        #expect(decide(request([.range: "bytes=0-1"]), [fresh]) == .bypass)
        #expect(decide(request([.cacheControl: "no-store"]), [fresh]) == .bypass)
        #expect(decide(request([.init("Pragma")!: "no-cache"]), [fresh]) != .serve(fresh, .hit))
        #expect(decide(request([.cacheControl: "min-fresh=55"]), [fresh]) != .serve(fresh, .hit))
        #expect(decide(request([.cacheControl: "max-stale"]), [stale]) == .serve(stale, .staleServed))
        let mustRevalidate = stored([.cacheControl: "max-age=5, must-revalidate", .eTag: "\"e\""], age: 10)
        #expect(decide(request([.cacheControl: "max-stale"]), [mustRevalidate]) != .serve(mustRevalidate, .staleServed))
        #expect(decide(request([.cacheControl: "only-if-cached"]), []) == .unavailable(.onlyIfCached))
        #expect(decide(request([.cacheControl: "only-if-cached"]), [stale]) == .unavailable(.onlyIfCached))
    }

    @Test("The caller's own validators: a fresh match is answered 304, anything else is sent as it is")
    func callerValidators() {
        let fresh = stored([.cacheControl: "max-age=60", .eTag: "W/\"e\"", .init("Last-Modified")!: "Sun, 06 Nov 1994 08:49:37 GMT"])
        #expect(decide(request([.ifNoneMatch: "\"a\", \"e\""]), [fresh]) == .notModified(fresh))
        #expect(decide(request([.ifNoneMatch: "\"a\""]), [fresh]) == .bypass)
        #expect(decide(request([.ifModifiedSince: "Mon, 07 Nov 1994 08:49:37 GMT"]), [fresh]) == .notModified(fresh))
        #expect(decide(request([.ifModifiedSince: "Sat, 05 Nov 1994 08:49:37 GMT"]), [fresh]) == .bypass)
        #expect(decide(request([.ifNoneMatch: "\"e\""]), [stored([.cacheControl: "max-age=5", .eTag: "\"e\""], age: 10)]) == .bypass)
        #expect(!CacheAdmission.mayStore(request([.ifNoneMatch: "\"e\""]), status: 200, fields: [.cacheControl: "max-age=5"]))
    }

    @Test("Lookup by policy")
    func lookupByPolicy() {
        let stale = stored([.cacheControl: "max-age=5", .eTag: "\"e\""], age: 10)
        let fresh = stored([.cacheControl: "max-age=60", .eTag: "\"e\""])
        #expect(decide(request(policy: .reloadIgnoringCacheData), [fresh]) == .forward)
        #expect(decide(request(policy: .reloadRevalidatingCacheData), [fresh]) == .validate(fresh, conditions: [HTTPField(name: .ifNoneMatch, value: "\"e\"")]))
        #expect(decide(request(policy: .returnCacheDataElseLoad), [stale]) == .serve(stale, .staleServed))
        #expect(decide(request(policy: .returnCacheDataElseLoad), []) == .forward)
        #expect(decide(request(policy: .returnCacheDataDontLoad), [fresh]) == .serve(fresh, .hit))
        #expect(decide(request(policy: .returnCacheDataDontLoad), []) == .unavailable(.policy))
    }

    @Test("Variants: a stored response answers only a request with the same values of the fields its Vary names")
    func variants() {
        var english = stored([.cacheControl: "max-age=60", .init("Vary")!: "Accept-Language, Accept"])
        english.variant = request([.acceptLanguage: "en"]).variant(of: english.varyNames)
        #expect(decide(request([.acceptLanguage: "en"]), [english]) == .serve(english, .hit))
        #expect(decide(request([.acceptLanguage: "fr"]), [english]) == .forward)
        #expect(decide(request([.acceptLanguage: "en", .accept: "x"]), [english]) == .forward)
        let star = stored([.cacheControl: "max-age=60", .init("Vary")!: "*"])
        #expect(decide(request(), [star]) == .forward)
    }

    @Test("Admission: what a private cache may store")
    func admission() {
        let get = request()
        #expect(CacheAdmission.mayStore(get, status: 200, fields: [:]))
        #expect(CacheAdmission.mayStore(get, status: 404, fields: [:]))
        #expect(!CacheAdmission.mayStore(get, status: 500, fields: [:]))
        #expect(CacheAdmission.mayStore(get, status: 500, fields: [.cacheControl: "max-age=5"]))
        #expect(CacheAdmission.mayStore(get, status: 200, fields: [.cacheControl: "private, max-age=5"]))
        #expect(!CacheAdmission.mayStore(get, status: 206, fields: [.cacheControl: "max-age=5"]))
        #expect(!CacheAdmission.mayStore(get, status: 200, fields: [.cacheControl: "no-store"]))
        #expect(CacheAdmission.mayStore(get, status: 200, fields: [.cacheControl: "must-understand, no-store, max-age=5"]))
        #expect(!CacheAdmission.mayStore(get, status: 299, fields: [.cacheControl: "must-understand, no-store, max-age=5"]))
        #expect(!CacheAdmission.mayStore(get, status: 200, fields: [.init("Vary")!: "*"]))
        #expect(!CacheAdmission.mayStore(request(method: .post), status: 200, fields: [.cacheControl: "max-age=5"]))
        let authorized = request([.authorization: "Basic x"])
        #expect(!CacheAdmission.mayStore(authorized, status: 200, fields: [.cacheControl: "max-age=5"]))
        #expect(CacheAdmission.mayStore(authorized, status: 200, fields: [.cacheControl: "max-age=5, public"]))
        #expect(CacheAdmission.mayStore(authorized, status: 200, fields: [.cacheControl: "s-maxage=5"]))
        var unknown = request()
        unknown.partition = nil
        #expect(!CacheAdmission.mayStore(unknown, status: 200, fields: [.cacheControl: "max-age=5"]), "whose it is cannot be told")
    }

    @Test("§3.5: a response to a credentialed request only when a shared cache could store it", arguments: [
        ("public, max-age=60", true), ("s-maxage=60", true), ("max-age=60, must-revalidate", true),
        ("max-age=60", false), ("private, must-revalidate, max-age=60", false), ("public, private, max-age=60", false),
        ("proxy-revalidate, max-age=60", false), ("max-age=60, x-note=\"s-maxage\"", false), ("s-maxage=x, max-age=60", false),
    ])
    func credentialedAdmission(cacheControl: String, stored: Bool) {
        let carriers = [
            request([.authorization: "Bearer t"]),
            CacheRequest(method: .get, url: "http://a/x", headerFields: [:], policy: .useProtocolCachePolicy, isCredentialed: true),
        ]
        for carrier in carriers {
            #expect(CacheAdmission.mayStore(carrier, status: 200, fields: [.cacheControl: cacheControl]) == stored)
        }
        #expect(CacheAdmission.mayStore(request(), status: 200, fields: [.cacheControl: cacheControl]), "without credentials: stored")
    }

    @Test("Set-Cookie is never stored, nor taken from a 304")
    func setCookieIsNotStorable() {
        let fields: HTTPFields = [.setCookie: "session=1", .init("Set-Cookie2")!: "a=b", .eTag: "\"e\""]
        #expect(CacheAdmission.storable(fields) == [.eTag: "\"e\""])
        let updated = CacheAdmission.updated(stored([.eTag: "\"e\""]), by: fields, requestTime: Self.now, responseTime: Self.now)
        #expect(updated.headerFields[.setCookie] == nil)
    }

    @Test("A request whose partition cannot be told is sent as it is")
    func unknownPartitionBypasses() {
        var unknown = request()
        unknown.partition = nil
        #expect(decide(unknown, [stored([.cacheControl: "max-age=60"])]) == .bypass)
    }

    @Test("The cache key leaves out user info and the fragment, and keeps the query")
    func keyWithoutUserInfo() {
        #expect(CacheRequest.key("http://u:p@a.example:8080/x?q=1#f") == ("http://a.example:8080/x?q=1", "u:p"))
        #expect(CacheRequest.key("https://a.example/x@y?z=@") == ("https://a.example/x@y?z=@", nil))
        #expect(CacheRequest.key("http://a:b@c@host/") == ("http://host/", "a:b@c"))
        #expect(CacheRequest.key("http://host?x").userInfo == nil)
        #expect(CacheRequest.key("mailto:u@h#x://a@b") == ("mailto:u@h", nil))
        #expect(CacheRequest.key("a://b://c@d/e") == ("a://b://c@d/e", nil))
        #expect(CacheRequest.key("http://é@hôte/ü#ç") == ("http://hôte/ü", "é"))
    }

    @Test("Variant values are keyed hashes of what is sent, with what curl adds itself")
    func variantValuesAreKeyedHashes() {
        let key = KeyedHash(key: Array(repeating: 7, count: 32))
        let plain = CacheRequest(method: .get, url: "http://a/x", headerFields: [.acceptLanguage: "en, fr"], policy: .useProtocolCachePolicy, keyedHash: key)
        let spaced = CacheRequest(method: .get, url: "http://a/x", headerFields: [.acceptLanguage: "en,fr"], policy: .useProtocolCachePolicy, keyedHash: key)
        let jar = CacheRequest(
            method: .get, url: "http://a/x", headerFields: [:], policy: .useProtocolCachePolicy, addedFields: ["cookie": "s=1"], keyedHash: key)
        let otherKey = CacheRequest(method: .get, url: "http://a/x", headerFields: [.acceptLanguage: "en, fr"], policy: .useProtocolCachePolicy)

        #expect(plain.variant(of: ["accept-language"]) == spaced.variant(of: ["accept-language"]))
        #expect(plain.variant(of: ["accept-language"])["accept-language"]?.count == 64)
        #expect(plain.variant(of: ["accept-language"])["accept-language"]?.contains("en") == false)
        #expect(plain.variant(of: ["accept-language"]) != otherKey.variant(of: ["accept-language"]))
        #expect(jar.variant(of: ["cookie"]).count == 1 && plain.variant(of: ["cookie"]).isEmpty)
    }

    @Test("A 304 replaces the stored fields it carries, but Content-Length and hop-by-hop fields")
    func notModifiedUpdates() {
        let old = stored([.cacheControl: "max-age=5", .contentLength: "1", .eTag: "\"e\"", .init("X-A")!: "1"], age: 100)
        let updated = CacheAdmission.updated(
            old, by: [.cacheControl: "max-age=60", .contentLength: "0", .connection: "close", .init("X-B")!: "2"],
            requestTime: Self.now, responseTime: Self.now)
        #expect(updated.headerFields[.cacheControl] == "max-age=60")
        #expect(updated.headerFields[.contentLength] == "1")
        #expect(updated.headerFields[.connection] == nil)
        #expect(updated.headerFields[.init("X-A")!] == "1" && updated.headerFields[.init("X-B")!] == "2")
        #expect(updated.responseTime == Self.now && updated.body == old.body)
        let listed = CacheAdmission.storable([.connection: "a, B", .init("A")!: "1", .init("b")!: "2", .init("C")!: "3"])
        #expect(listed.map(\.name.rawName) == ["C"])
    }

    @Test("Invalidation: an unsafe method's success invalidates the target and same-origin locations only")
    func invalidation() {
        let fields: HTTPFields = [.location: "/other", .init("Content-Location")!: "http://elsewhere/x"]
        #expect(CacheAdmission.invalidated(method: .post, url: "http://a/x", status: 201, fields: fields) == ["http://a/x", "http://a/other"])
        #expect(CacheAdmission.invalidated(method: .delete, url: "http://a/x", status: 500, fields: fields).isEmpty)
        #expect(CacheAdmission.invalidated(method: .get, url: "http://a/x", status: 200, fields: fields).isEmpty)
    }
}
