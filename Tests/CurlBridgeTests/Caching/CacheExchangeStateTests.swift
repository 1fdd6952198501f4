@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// ``CacheExchangeState`` told as stories: where each way in leads, and the trust rules its
/// stores keep — whose a response is, what is written to disk, what a send reports.
@Suite("Cache exchange state: beginnings and stores")
struct CacheExchangeStateTests {
    private typealias F = CacheExchangeFixture

    private func state(_ request: Request, partition: String? = "p", addsJarCookies: Bool = false) -> CacheExchangeState {
        let prepared = F.prepared(request)
        return CacheExchangeState(
            request: F.request(prepared, partition: partition), prepared: prepared, requestTime: F.now,
            addsJarCookies: addsJarCookies, maximumRecordedSize: 1 << 20)
    }

    private func end(_ status: HTTPResponse.Status, _ fields: HTTPFields) -> TransferEnd {
        TransferEnd(result: .success(F.response(status, fields)))
    }

    @Test("A safe request the cache cannot use passes beneath untouched, with no exchange left")
    func bypassPassesThrough() {
        var state = state(.get(F.url).header("Cache-Control", "no-store"))
        guard case .passThrough(let prepared, paused: false) = state.begin() else { Issue.record("not passed through"); return }
        #expect(prepared.headerLines == state.prepared.headerLines && !prepared.reportsSentCookies)
        #expect(state.isFinished)
    }

    @Test("An unsafe method is sent as it is, and invalidates the URL in every partition when it succeeds")
    func unsafeMethodInvalidates() {
        var state = state(.post(F.url), addsJarCookies: true)
        guard case .send(let prepared, paused: false) = state.begin() else { Issue.record("not sent"); return }
        #expect(!prepared.reportsSentCookies, "the request as prepared")
        _ = state.headArrived(status: 201, declaredLength: 0, at: F.now)
        let ending = state.transferEnded(end(.created, [.location: "/b"]), sentAsLookedUp: false, now: { F.now })
        #expect(ending?.invalidated == [F.url, "http://example/b"] && ending?.stored == nil)
    }

    @Test("A send that may be stored reports the cookies curl sent when the jar adds some, unconditional or conditional")
    func sendsReportCookies() {
        var miss = state(.get(F.url), addsJarCookies: true)
        _ = miss.begin()
        guard case .send(let forwarded, _)? = miss.lookupAnswered([]) else { Issue.record("not sent"); return }
        #expect(forwarded.reportsSentCookies)
        var stale = state(.get(F.url), addsJarCookies: true)
        _ = stale.begin()
        guard case .send(let conditional, _)? = stale.lookupAnswered([F.stored(age: 120)]) else { Issue.record("not sent"); return }
        #expect(conditional.reportsSentCookies && conditional.headerLines.contains("If-None-Match: \"v1\""))
    }

    @Test("returnCacheDataDontLoad with no partition fails at once with notCached, leaving nothing to play")
    func policyUnavailable() {
        var state = state(.get(F.url).cachePolicy(.returnCacheDataDontLoad), partition: nil)
        guard case .end(let end) = state.begin(), case .failure(let error) = end.result else { Issue.record("not failed"); return }
        #expect(error.code == .notCached && state.isFinished)
    }

    @Test("only-if-cached with nothing stored plays a 504 marked miss")
    func onlyIfCachedPlaysAGatewayTimeout() {
        var state = state(.get(F.url).header("Cache-Control", "only-if-cached"))
        _ = state.begin()
        guard case .schedulePlay? = state.lookupAnswered([]), let play = state.playable else { Issue.record("not played"); return }
        #expect(play.response.status == .gatewayTimeout && play.response.metrics.cacheStatus == .miss)
    }

    @Test("A caller's conditional on a fresh response is answered 304; on a stale one it passes beneath as it is")
    func callersConditional() {
        var fresh = state(.get(F.url).header("If-None-Match", "\"v1\""))
        _ = fresh.begin()
        guard case .schedulePlay? = fresh.lookupAnswered([F.stored(age: 10)]), let play = fresh.playable else { Issue.record("not played"); return }
        #expect(play.response.status == .notModified && play.playback.body.isEmpty && play.response.headerFields[.contentLength] == nil)
        var stale = state(.get(F.url).header("If-None-Match", "\"v1\""))
        _ = stale.begin()
        guard case .passThrough? = stale.lookupAnswered([F.stored(age: 120)]) else { Issue.record("not passed through"); return }
        #expect(stale.isFinished)
    }

    @Test("A 304 under foreign cookies updates nothing, and still replays the stored body with the 304's fields and cookie")
    func foreignNotModifiedStoresNothing() {
        var state = state(.get(F.url))
        _ = state.begin()
        _ = state.lookupAnswered([F.stored(age: 120)])
        let passed = state.headArrived(status: 304, declaredLength: nil, at: F.now + 1)
        #expect(!passed, "the 304 is the cache's")
        let ending = state.transferEnded(
            end(.notModified, [.cacheControl: "max-age=600", .setCookie: "s=1"]), sentAsLookedUp: false, now: { F.now + 2 })
        #expect(ending?.stored == nil)
        guard case .schedulePlay? = ending?.next, let play = state.playable else { Issue.record("not replayed"); return }
        #expect(play.playback.body == F.body && play.response.status == .ok)
        #expect(play.response.headerFields[.setCookie] == "s=1" && play.response.headerFields[.cacheControl] == "max-age=600")
        #expect(play.response.metrics.cacheStatus == .revalidated)
    }

    @Test("A 304 in its own partition stores the merged response, timed by its head, without its cookie")
    func ownNotModifiedStoresTheMerge() {
        var state = state(.get(F.url))
        _ = state.begin()
        _ = state.lookupAnswered([F.stored(age: 120)])
        _ = state.headArrived(status: 304, declaredLength: nil, at: F.now + 1)
        let ending = state.transferEnded(
            end(.notModified, [.cacheControl: "max-age=600", .setCookie: "s=1"]), sentAsLookedUp: true, now: { F.now + 2 })
        #expect(ending?.stored?.headerFields[.cacheControl] == "max-age=600" && ending?.stored?.headerFields[.setCookie] == nil)
        #expect(ending?.stored?.responseTime == F.now + 1 && ending?.stored?.requestTime == F.now && ending?.persistent == true)
    }

    @Test("A request carrying a password is stored in memory only, on both store paths")
    func passwordIsNeverPersistent() {
        let request = Request.get(F.url).basicAuth(username: "alice", password: "a")
        var miss = state(request)
        _ = miss.begin()
        _ = miss.lookupAnswered([])
        _ = miss.headArrived(status: 200, declaredLength: 2, at: F.now)
        Data("ok".utf8).withUnsafeBytes { miss.pieceTaken($0) }
        let stored = miss.transferEnded(end(.ok, [.cacheControl: "public, max-age=60"]), sentAsLookedUp: true, now: { F.now })
        #expect(stored?.stored?.body == Data("ok".utf8) && stored?.persistent == false)

        var stale = state(request)
        _ = stale.begin()
        _ = stale.lookupAnswered([F.stored(age: 120, extra: [.cacheControl: "public"])])
        _ = stale.headArrived(status: 304, declaredLength: nil, at: F.now)
        let merged = stale.transferEnded(end(.notModified, [:]), sentAsLookedUp: true, now: { F.now })
        #expect(merged?.stored != nil && merged?.persistent == false)
    }

    @Test("Only taken pieces are recorded, a body past the largest size is dropped for good, and a second head starts again")
    func recording() {
        var state = state(.get(F.url))
        _ = state.begin()
        _ = state.lookupAnswered([])
        _ = state.headArrived(status: 401, declaredLength: nil, at: F.now)
        Data("401".utf8).withUnsafeBytes { state.pieceTaken($0) }
        _ = state.headArrived(status: 200, declaredLength: nil, at: F.now)
        Data("ok".utf8).withUnsafeBytes { state.pieceTaken($0) }
        guard case .on(let body) = state.recording else { Issue.record("not recording"); return }
        #expect(body == Data("ok".utf8))
        Data(count: 1 << 20).withUnsafeBytes { state.pieceTaken($0) }
        Data("!".utf8).withUnsafeBytes { state.pieceTaken($0) }
        guard case .off = state.recording else { Issue.record("still recording"); return }
    }
}
