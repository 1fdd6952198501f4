import Foundation

/// One request of a cache test: what the client sends, what the origin answers, and what is
/// checked (CONTRIBUTING.md of cache-tests lists the members).
struct CacheTestRequest: Decodable, Sendable {
    /// How the response of a request is expected to have been produced.
    enum ExpectedType: String, Decodable, Sendable {
        /// From the cache, without the origin seeing the request.
        case cached
        /// From the origin.
        case notCached = "not_cached"
        /// From the cache, after a request with `If-None-Match` answered `304`.
        case etagValidated = "etag_validated"
        /// From the cache, after a request with `If-Modified-Since` answered `304`.
        case lmValidated = "lm_validated"

        /// Whether the origin is to see a conditional request (handle-test.mjs: "validated").
        var isValidated: Bool { self == .etagValidated || self == .lmValidated }
    }

    /// The Fetch cache mode of the request (`cache`).
    enum CacheMode: String, Decodable, Sendable {
        /// Fetch sends `Cache-Control: max-age=0` unless the request has a `Cache-Control`.
        case noCache = "no-cache"
    }

    /// The Fetch redirect mode of the request (`redirect`).
    enum RedirectMode: String, Decodable, Sendable {
        /// Redirects are followed (Fetch's default).
        case follow
        /// A redirect is the response.
        case manual
    }

    /// A check the suite may leave out (the default check applies), give as `null` (nothing is
    /// checked), or give a value for.
    enum Stated<Value: Decodable & Sendable>: Sendable {
        case absent
        case null
        case value(Value)
    }

    let requestMethod: String
    let requestHeaders: [HeaderTemplate]
    let requestBody: String?
    /// Appended to the test's URL after `?`.
    let queryArgument: String?
    /// Appended to the test's URL as a last path segment.
    let filename: String?
    let cacheMode: CacheMode?
    let redirectMode: RedirectMode
    /// Whether the test waits 3 seconds after this request (the engine's `pause`).
    let pauseAfter: Bool
    /// Whether the origin closes the connection instead of answering.
    let disconnect: Bool
    /// Whether `Location` and `Content-Location` values (here and in the expected headers) are
    /// made relative to the request's URL.
    let magicLocations: Bool
    /// Whether a number as the `If-Modified-Since` value is an offset from the previous
    /// response's `Server-Now` rather than sent as it is.
    let magicIfModifiedSince: Bool
    /// Lowercased names of date headers written as RFC 850 dates rather than IMF-fixdates.
    let rfc850DateHeaders: [String]

    /// The origin's status code (`response_status` without its reason phrase, which the test
    /// server does not send: it sends the standard one).
    let responseStatus: Int?
    let responseHeaders: [HeaderTemplate]
    /// The origin's body; `nil` for the test's UUID.
    let responseBody: String?
    /// Seconds the origin waits before it answers.
    let responsePause: Int?
    let usesInterimResponses: Bool

    let checksBody: Bool
    let expectedType: ExpectedType?
    let expectedMethod: String?
    let expectedStatus: Stated<Int>
    let expectedResponseText: Stated<String>
    let expectedRequestHeaders: [RequestHeaderExpectation]
    let expectedRequestHeadersMissing: [RequestHeaderExpectation]
    let expectedResponseHeaders: [ResponseHeaderExpectation]
    let expectedResponseHeadersMissing: [MissingResponseHeader]

    /// Whether every check of this request is setup (`setup`).
    let isSetup: Bool
    /// The members whose checks are setup (`setup_tests`), e.g. `"expected_type"`.
    let setupMembers: [String]

    /// Whether a failed check of `member` (e.g. `"expected_type"`) means the setup failed rather
    /// than the test (utils.mjs `setupCheck`).
    func isSetup(_ member: String) -> Bool {
        isSetup || setupMembers.contains(member)
    }

    private enum CodingKeys: String, CodingKey {
        case requestMethod = "request_method", requestHeaders = "request_headers", requestBody = "request_body"
        case queryArgument = "query_arg", filename, cacheMode = "cache", redirectMode = "redirect"
        case pauseAfter = "pause_after", disconnect, magicLocations = "magic_locations"
        case magicIfModifiedSince = "magic_ims", rfc850DateHeaders = "rfc850date"
        case responseStatus = "response_status", responseHeaders = "response_headers", responseBody = "response_body"
        case responsePause = "response_pause", interimResponses = "interim_responses"
        case checksBody = "check_body", expectedType = "expected_type", expectedMethod = "expected_method"
        case expectedStatus = "expected_status", expectedResponseText = "expected_response_text"
        case expectedRequestHeaders = "expected_request_headers"
        case expectedRequestHeadersMissing = "expected_request_headers_missing"
        case expectedResponseHeaders = "expected_response_headers"
        case expectedResponseHeadersMissing = "expected_response_headers_missing"
        case expectedInterimResponses = "expected_interim_responses"
        case isSetup = "setup", setupMembers = "setup_tests"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func flag(_ key: CodingKeys) throws -> Bool { try container.decodeIfPresent(Bool.self, forKey: key) ?? false }
        func list<Element: Decodable>(_ key: CodingKeys) throws -> [Element] {
            try container.decodeIfPresent([Element].self, forKey: key) ?? []
        }
        func stated<Value: Decodable>(_ key: CodingKeys) throws -> Stated<Value> {
            guard container.contains(key) else { return .absent }
            if try container.decodeNil(forKey: key) { return .null }
            return .value(try container.decode(Value.self, forKey: key))
        }

        requestMethod = try container.decodeIfPresent(String.self, forKey: .requestMethod) ?? "GET"
        requestHeaders = try list(.requestHeaders)
        requestBody = try container.decodeIfPresent(String.self, forKey: .requestBody)
        queryArgument = try container.decodeIfPresent(String.self, forKey: .queryArgument)
        filename = try container.decodeIfPresent(String.self, forKey: .filename)
        cacheMode = try container.decodeIfPresent(CacheMode.self, forKey: .cacheMode)
        redirectMode = try container.decodeIfPresent(RedirectMode.self, forKey: .redirectMode) ?? .follow
        pauseAfter = try flag(.pauseAfter)
        disconnect = try flag(.disconnect)
        magicLocations = try flag(.magicLocations)
        magicIfModifiedSince = try flag(.magicIfModifiedSince)
        rfc850DateHeaders = (try list(.rfc850DateHeaders) as [String]).map { $0.lowercased() }

        responseStatus = try container.decodeIfPresent(StatusLine.self, forKey: .responseStatus)?.code
        responseHeaders = try list(.responseHeaders)
        responseBody = try container.decodeIfPresent(String.self, forKey: .responseBody)
        responsePause = try container.decodeIfPresent(Int.self, forKey: .responsePause)
        usesInterimResponses = container.contains(.interimResponses) || container.contains(.expectedInterimResponses)

        checksBody = try container.decodeIfPresent(Bool.self, forKey: .checksBody) ?? true
        expectedType = try container.decodeIfPresent(ExpectedType.self, forKey: .expectedType)
        expectedMethod = try container.decodeIfPresent(String.self, forKey: .expectedMethod)
        expectedStatus = try stated(.expectedStatus)
        expectedResponseText = try stated(.expectedResponseText)
        expectedRequestHeaders = try list(.expectedRequestHeaders)
        expectedRequestHeadersMissing = try list(.expectedRequestHeadersMissing)
        expectedResponseHeaders = try list(.expectedResponseHeaders)
        expectedResponseHeadersMissing = try list(.expectedResponseHeadersMissing)

        isSetup = try flag(.isSetup)
        setupMembers = try list(.setupMembers)
    }
}

/// The code of a `[code, phrase]` pair, as in `response_status`.
private struct StatusLine: Decodable {
    let code: Int

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        code = try container.decode(Int.self)
    }
}
