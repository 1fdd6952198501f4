import Foundation
import FuzzSupport
import HTTPTypes
@testable import CurlBridge

/// The cache's rules as values, on fuzzed header fields (lines of `Name: value`, see
/// `FieldLines`: several `Cache-Control` lines, quoted strings, odd commas and `=`, huge numbers,
/// bytes that are not UTF-8; and `Age`, `Date`, `Expires`, `Last-Modified`, `Pragma`, `Vary`,
/// `ETag`, `Set-Cookie`, `Connection`…): `CacheControl(_:)` of a response and a request;
/// `CacheAdmission.mayStore`, `storable` and `updated` (by a fuzzed `304`); `CacheFreshness(of:now:)`
/// of that response and of up to two more stored ones (fuzzed statuses, fields, times, URL,
/// partition and variant); and `CacheLookup.decide` for a request with a fuzzed method, policy,
/// partition (unknown included), credentials and validators.
///
/// Invariants: nothing traps (ages and lifetimes of any size become the `Age` a hit is served
/// with). Directive values are never negative, and where every `Cache-Control` line is
/// well-formed, `CacheControl` reads the directives RFC 9110/9111's grammar gives
/// (`StrictDirectives`): flags, the first `max-age` (an invalid one 0), the first `max-stale`
/// (without a value: any staleness; an invalid one absent), the first valid `min-fresh` and
/// `s-maxage`, a number too large for an `Int` as the largest one (RFC 9111 §1.2.2).
/// Freshness: age and lifetime finite and not negative, `isFresh == (lifetime > age)`.
/// Admission: `mayStore` is false for `no-store` (but with `must-understand` and a status it
/// understands), for a request that is not a GET, that is partial, conditional or `no-store`, or
/// whose partition is unknown, for statuses outside 200...599 and 206 and 304, for `Vary: *`, for
/// a credentialed request without `public`, `s-maxage` or `must-revalidate` (or with `private`),
/// and for a response that gives no freshness at all; `storable` keeps every field but
/// `Set-Cookie`, `Set-Cookie2`, hop-by-hop fields and those `Connection` names, in order;
/// `updated` keeps the stored URL, partition, status, body and variant, takes the 304's times
/// and its storable fields (but `Content-Length`).
/// Lookup: a response served, answered `304` or revalidated is a stored one whose URL,
/// partition and variant are the request's; a request the cache keeps out of (not GET or HEAD,
/// partial, with a precondition, an unknown partition, `no-store`) is bypassed;
/// `returnCacheDataDontLoad` never sends; `reloadIgnoringCacheData` never answers from the
/// cache, `reloadRevalidatingCacheData` never without the origin; under
/// `useProtocolCachePolicy` a hit is fresh, satisfies the request's `max-age` and `min-fresh`
/// and neither side's `no-cache`, a stale response is served only within the request's
/// `max-stale` and without `must-revalidate`; a revalidation carries exactly the stored
/// validators (`If-None-Match` from `ETag`, `If-Modified-Since` from `Last-Modified`), never none;
/// `304` only for the caller's own validators that the stored response satisfies.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheControl(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let responseFields = FieldLines.fields(input.bytes())
    let status = input.number(in: 0...999)
    let requestFields = FieldLines.fields(input.bytes())
    let method = input.pick([HTTPRequest.Method.get, .head, .post, .put, .delete, .options])
    let policy = input.pick([CachePolicy.useProtocolCachePolicy, .reloadIgnoringCacheData, .reloadRevalidatingCacheData,
                             .returnCacheDataElseLoad, .returnCacheDataDontLoad])
    let partition = input.pick([Optional("p"), nil, "q"])
    let isCredentialed = input.pick([Bool?.none, false, true])
    let cookie = input.optionalString()
    let url = input.pick(urls)
    let now = Date(timeIntervalSince1970: time(input.double(), near: 1_700_000_000))
    let request = CacheRequest(
        method: method, url: url, headerFields: requestFields, policy: policy, partition: partition,
        isCredentialed: isCredentialed, addedFields: cookie.map { ["cookie": $0] } ?? [:], keyedHash: key)

    checkDirectives(responseFields)
    checkDirectives(requestFields)
    checkAdmission(request, status: status, fields: responseFields)
    let kept = CacheAdmission.storable(responseFields)
    checkStorable(kept, from: responseFields)

    // The response as the cache would store it (whether or not it may), perhaps updated by a 304;
    // then up to two more stored responses of other URLs, partitions, variants or times.
    var stored = [storedResponse(status: status, fields: kept, request: request, now: now, input: &input)]
    let notModifiedFields = FieldLines.fields(input.bytes())
    if input.flag() {
        let requestTime = Date(timeIntervalSince1970: time(input.double(), near: now.timeIntervalSince1970))
        let responseTime = Date(timeIntervalSince1970: time(input.double(), near: requestTime.timeIntervalSince1970))
        let updated = CacheAdmission.updated(stored[0], by: notModifiedFields, requestTime: requestTime, responseTime: responseTime)
        checkUpdated(updated, stored: stored[0], by: notModifiedFields, requestTime: requestTime, responseTime: responseTime)
        stored[0] = updated
    }
    for _ in 0..<input.number(in: 0...2) {
        stored.append(storedResponse(
            status: input.number(in: 100...599), fields: FieldLines.fields(input.bytes()), request: request, now: now, input: &input))
    }
    for response in stored { checkFreshness(response, now: now) }

    var asked = false
    let decision = CacheLookup.decide(request, stored: { asked = true; return stored }, now: now)
    checkLookup(decision, request: request, stored: stored, now: now, asked: asked)
    return 0
}

/// The cache's key (for variants).
private let key = KeyedHash(key: Array(0..<32))
private let urls = ["https://a.example/x", "https://a.example/x?q=1", "https://user:pw@a.example/x#f", "http://a.example/x", "https://b.example/x"]

/// `value` when finite and within 1e11 s of 1970 (what an entry file may hold), else `fallback`.
private func time(_ value: Double, near fallback: TimeInterval) -> TimeInterval {
    value.isFinite && abs(value) < 1e11 ? value : fallback
}

/// A stored response with `fields`, for the request's URL and partition or others, with the
/// request's variant or another request's, and fuzzed times.
private func storedResponse(status: Int, fields: HTTPFields, request: CacheRequest, now: Date, input: inout FuzzInput) -> StoredResponse {
    let url = input.flag() ? input.pick(urls) : request.url
    let partition = input.pick([request.partition ?? "p", "p", "q"])
    // The variant: of this request, or of one with other values for the fields Vary names.
    var varying = request
    if input.flag() { varying.headerFields = FieldLines.fields(input.bytes()) }
    let requestTime = Date(timeIntervalSince1970: time(input.double(), near: now.timeIntervalSince1970))
    let responseTime = Date(timeIntervalSince1970: time(input.double(), near: requestTime.timeIntervalSince1970))
    return StoredResponse(
        url: CacheRequest.key(url).url, partition: partition,
        status: HTTPResponse.Status(code: (100...599).contains(status) ? status : 200), headerFields: fields, httpVersion: .http1_1,
        body: Data("body".utf8), requestTime: requestTime, responseTime: responseTime,
        variant: varying.variant(of: StoredResponse.varyNames(fields)))
}

// MARK: Directives

private func checkDirectives(_ fields: HTTPFields) {
    let control = CacheControl(fields)
    for (name, value) in [("max-age", control.maxAge), ("min-fresh", control.minFresh), ("s-maxage", control.sharedMaxAge),
                          ("max-stale", control.maxStale ?? nil)] {
        require(value.map { $0 >= 0 } ?? true, "\(name)=\(value!) from \(lines(fields))")
    }
    // Where every line is well-formed, the grammar's reading is the one.
    var directives: [(name: String, value: String?)] = []
    for line in fields[values: .cacheControl] {
        guard let read = StrictDirectives.read(line) else { return }
        directives += read
    }
    var expected = CacheControl([:])
    for (name, value) in directives {
        let seconds = value.flatMap(StrictDirectives.seconds)
        switch name {
        case "max-age": if expected.maxAge == nil { expected.maxAge = seconds ?? 0 }
        case "max-stale": if expected.maxStale == nil, value == nil || seconds != nil { expected.maxStale = .some(seconds) }
        case "min-fresh": if expected.minFresh == nil, let seconds { expected.minFresh = seconds }
        case "s-maxage": if expected.sharedMaxAge == nil, let seconds { expected.sharedMaxAge = seconds }
        case "no-cache": expected.noCache = true
        case "no-store": expected.noStore = true
        case "must-understand": expected.mustUnderstand = true
        case "only-if-cached": expected.onlyIfCached = true
        case "must-revalidate": expected.mustRevalidate = true
        case "public": expected.isPublic = true
        case "private": expected.isPrivate = true
        default: break
        }
    }
    require(control == expected, "\(lines(fields)) read as \(control), the grammar gives \(expected)")
}

private func lines(_ fields: HTTPFields) -> String {
    fields[values: .cacheControl].map(\.debugDescription).joined(separator: " + ")
}

// MARK: Admission

private func checkAdmission(_ request: CacheRequest, status: Int, fields: HTTPFields) {
    let mayStore = CacheAdmission.mayStore(request, status: status, fields: fields)
    guard mayStore else { return }
    let response = CacheControl(fields)
    let why = "\(request.method) with \(request.headerFields) (partition \(String(describing: request.partition))), \(status) with \(fields)"
    require(request.partition != nil && request.method == .get && !request.isPartialOrPrecondition && !request.hasValidators
            && !request.cacheControl.noStore, "the response to this request may be stored: \(why)")
    require((200...599).contains(status) && status != 206 && status != 304, "status \(status) may be stored: \(why)")
    require(!response.noStore || (response.mustUnderstand && CacheAdmission.understoodStatuses.contains(status)),
            "no-store may be stored: \(why)")
    require(!response.mustUnderstand || CacheAdmission.understoodStatuses.contains(status),
            "must-understand with a status not understood may be stored: \(why)")
    require(!StoredResponse.varyNames(fields).contains("*"), "Vary: * may be stored: \(why)")
    require(!request.isCredentialed || ((response.isPublic || response.sharedMaxAge != nil || response.mustRevalidate) && !response.isPrivate),
            "a response to a credentialed request may be stored without public, s-maxage or must-revalidate, or with private: \(why)")
    require(response.maxAge != nil || response.isPublic || response.isPrivate || fields[.expires] != nil
            || CacheFreshness.heuristicallyCacheable.contains(status), "a response without freshness may be stored: \(why)")
}

private func checkStorable(_ kept: HTTPFields, from fields: HTTPFields) {
    let connectionNames = Set(fields[values: .connection].flatMap { $0.split(separator: ",") }
        .map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    let unstored: Set<String> = ["set-cookie", "set-cookie2", "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding",
                                 "upgrade", "proxy-authenticate", "proxy-authentication-info", "proxy-authorization", "trailer"]
    let expected = fields.filter { !unstored.contains($0.name.canonicalName) && !connectionNames.contains($0.name.canonicalName) }
    require(Array(kept) == Array(expected), "storable(\(fields)) kept \(kept)")
}

private func checkUpdated(_ updated: StoredResponse, stored: StoredResponse, by fields: HTTPFields, requestTime: Date, responseTime: Date) {
    require(updated.url == stored.url && updated.partition == stored.partition && updated.status == stored.status
            && updated.body == stored.body && updated.variant == stored.variant && updated.httpVersion == stored.httpVersion,
            "a 304 changed more than fields and times")
    require(updated.requestTime == requestTime && updated.responseTime == responseTime, "a 304 did not update the times")
    let replacing = CacheAdmission.storable(fields).filter { $0.name != .contentLength }
    let names = Set(replacing.map(\.name.canonicalName))
    let merged = Array(stored.headerFields.filter { !names.contains($0.name.canonicalName) }) + Array(replacing)
    require(Array(updated.headerFields) == Array(merged.prefix(StoredResponse.maximumFieldCount)),
            "after a 304, the fields are not the stored ones it does not replace, then its own (\(updated.headerFields.count) of \(merged.count))")
    guard merged.count <= StoredResponse.maximumFieldCount else { return }
    for name in Set(updated.headerFields.map(\.name.canonicalName)) {
        let expected = names.contains(name) ? replacing.filter { $0.name.canonicalName == name } : stored.headerFields.filter { $0.name.canonicalName == name }
        require(updated.headerFields.filter { $0.name.canonicalName == name }.map(\.value) == expected.map(\.value),
                "after a 304, \(name) is not the 304's or the stored one's")
    }
    require(Set(updated.headerFields.map(\.name.canonicalName)) == names.union(stored.headerFields.map(\.name.canonicalName)),
            "a 304 lost or invented field names")
}

// MARK: Freshness

private func checkFreshness(_ stored: StoredResponse, now: Date) {
    let freshness = CacheFreshness(of: stored, now: now)
    require(freshness.age.isFinite && freshness.age >= 0 && freshness.lifetime.isFinite && freshness.lifetime >= 0,
            "age \(freshness.age), lifetime \(freshness.lifetime) for \(stored.headerFields)")
    require(freshness.isFresh == (freshness.lifetime > freshness.age) && freshness.staleness == max(0, freshness.age - freshness.lifetime),
            "freshness \(freshness) is inconsistent")
    // The Age field a hit is served with: whole seconds, never negative, whatever the age.
    let served = freshness.ageFieldValue
    require(Int(served).map { $0 >= 0 } == true, "a hit of age \(freshness.age) is served with Age: \(served)")
}

// MARK: Lookup

private func checkLookup(_ decision: CacheLookup, request: CacheRequest, stored: [StoredResponse], now: Date, asked: Bool) {
    let control = request.cacheControl
    let why = "\(request.method) \(request.url) (\(request.policy), partition \(String(describing: request.partition))) with \(request.headerFields) against \(stored.map { "\($0.url) \($0.partition) \($0.headerFields)" }): \(decision)"
    let keptOut = request.partition == nil || !(request.method == .get || request.method == .head) || request.isPartialOrPrecondition
        || control.noStore
    let policy = request.policy
    switch decision {
    case .bypass, .forward, .validate:
        require(policy != .returnCacheDataDontLoad, "returnCacheDataDontLoad sends: \(why)")
    case .unavailable(.policy):
        require(policy == .returnCacheDataDontLoad, "unavailable by a policy that is not returnCacheDataDontLoad: \(why)")
    case .unavailable(.onlyIfCached):
        require(control.onlyIfCached, "unavailable without only-if-cached: \(why)")
    case .serve, .notModified:
        require(policy != .reloadIgnoringCacheData && policy != .reloadRevalidatingCacheData, "\(policy) answered from the cache: \(why)")
    }
    if keptOut {
        require(decision == .bypass || (policy == .returnCacheDataDontLoad && decision == .unavailable(.policy)),
                "a request the cache keeps out of was not bypassed: \(why)")
        require(!asked, "the store was read for a request the cache keeps out of: \(why)")
        return
    }
    switch decision {
    case .serve(let entry, let status):
        checkEntry(entry, request: request, stored: stored, why)
        let freshness = CacheFreshness(of: entry, now: now)
        let entryControl = CacheControl(entry.headerFields)
        require(status == (freshness.isFresh ? .hit : .staleServed), "served as \(status) at freshness \(freshness): \(why)")
        if request.hasValidators {
            require(policy == .returnCacheDataDontLoad, "a full response answered the caller's own conditional request: \(why)")
        }
        guard policy == .useProtocolCachePolicy else { return }
        require(!control.noCache && !entryControl.noCache, "no-cache served from the cache: \(why)")
        require(control.maxAge.map { $0 > 0 && freshness.age <= TimeInterval($0) } ?? true, "served past the request's max-age: \(why)")
        require(control.minFresh.map { freshness.lifetime - freshness.age >= TimeInterval($0) } ?? true, "served within min-fresh: \(why)")
        if !freshness.isFresh {
            require(!entryControl.mustRevalidate, "a stale must-revalidate response served: \(why)")
            guard let maxStale = control.maxStale else {
                require(false, "a stale response served without max-stale: \(why)")
                return
            }
            require(maxStale.map { freshness.staleness <= TimeInterval($0) } ?? true, "served beyond max-stale: \(why)")
        }
    case .notModified(let entry):
        checkEntry(entry, request: request, stored: stored, why)
        require(request.hasValidators && request.isNotModified(entry), "304 without the caller's validators matching: \(why)")
        require(CacheFreshness(of: entry, now: now).isFresh, "304 from a stale response: \(why)")
    case .validate(let entry, let conditions):
        checkEntry(entry, request: request, stored: stored, why)
        require(!request.hasValidators, "the cache added its validators to the caller's own: \(why)")
        require(policy == .useProtocolCachePolicy || policy == .reloadRevalidatingCacheData, "\(policy) revalidated: \(why)")
        var expected: [HTTPField] = []
        if let etag = entry.headerFields[.eTag] { expected.append(HTTPField(name: .ifNoneMatch, value: etag)) }
        if let lastModified = entry.headerFields[.lastModified] { expected.append(HTTPField(name: .ifModifiedSince, value: lastModified)) }
        require(!conditions.isEmpty && conditions == expected, "revalidated with \(conditions), the stored validators are \(expected): \(why)")
    case .forward:
        let matching = stored.first { $0.matches(request) }
        let hasValidators = matching.map { $0.headerFields[.eTag] != nil || $0.headerFields[.lastModified] != nil } ?? false
        switch policy {
        case .reloadIgnoringCacheData: break
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
            require(matching == nil, "a request with a stored response was sent: \(why)")
        case .useProtocolCachePolicy, .reloadRevalidatingCacheData:
            require(!hasValidators, "a request with a stored response to revalidate was sent without its validators: \(why)")
        }
    case .bypass:
        require(request.hasValidators, "a request the cache takes part in was bypassed: \(why)")
    case .unavailable(.policy):
        require(!stored.contains { $0.matches(request) }, "returnCacheDataDontLoad found nothing though a stored response matches: \(why)")
    case .unavailable(.onlyIfCached):
        break
    }
}

/// A response the lookup chose is a stored one, and answers the request (URL, partition, variant).
private func checkEntry(_ entry: StoredResponse, request: CacheRequest, stored: [StoredResponse], _ why: @autoclosure () -> String) {
    require(stored.contains(entry), "chose a response that is not stored: \(why())")
    require(entry.url == request.url && entry.partition == request.partition && entry.matches(request),
            "chose a response of another URL, partition or variant: \(why())")
}
