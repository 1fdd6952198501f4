import Foundation
import FuzzSupport
import HTTPTypes
@testable import CurlBridge

/// The request builder and its validation: a method, a URL (absolute, or relative to a base URL),
/// header fields, query items and a body content type, all from the fuzzer, then
/// `prepared(with:)`, the step every client takes before curl sees the request.
///
/// Invariants:
/// - the first problem wins and has the precise code: an invalid method (not a token) is
///   `invalidMethod`; otherwise a header name that is not a token, or a header value or body
///   content type with CR, LF or NUL, is `invalidHeader`; URL problems are `invalidURL` or
///   `unsupportedScheme` (and `credentialsOverPlainHTTP` for credentials over http); nothing else;
/// - a prepared request's header lines hold no CR, LF or NUL and start with a token name;
/// - a prepared URL is plain ASCII with no space, control byte or fragment, is http or https,
///   carries every query item, and when libcurl's own URL parser accepts it, curl reads the same
///   scheme, host and port as CurlBridge's origin check (which scopes credentials), so the two
///   never disagree on where the request goes (IPv6 literals compared canonically, IDNA names
///   not compared by text).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let methodName = input.string()
    let url = input.string()
    let baseURL: URL? = switch input.number(in: 0...2) {
    case 0: nil
    case 1: URL(string: "https://api.example.com/v1")
    default: URL(string: input.string())
    }
    var request = Request(method: methodName, url: url)
    var expected: RequestError.Code? = methodName.isHTTPToken ? nil : .invalidMethod
    for _ in 0..<input.number(in: 0...6) {
        let name = input.string()
        let value = input.string()
        request = request.header(name, value)
        if expected == nil, !name.isHTTPToken || value.hasLineBreakingByte { expected = .invalidHeader }
    }
    var queryItems: [URLQueryItem] = []
    for _ in 0..<input.number(in: 0...3) {
        queryItems.append(URLQueryItem(name: input.string(), value: input.optionalString()))
    }
    request = request.query(queryItems)
    if input.flag() {
        let contentType = input.string()
        request = request.body("body", contentType: contentType)
        if expected == nil, contentType.hasLineBreakingByte { expected = .invalidHeader }
    }

    let defaults = RequestDefaults(Configuration(baseURL: baseURL))
    switch request.prepared(with: defaults) {
    case .failure(let error):
        if let expected {
            require(error.code == expected, "expected \(expected), got \(error.code): \(error)")
        } else {
            // Credentials (user info in the URL, or an Authorization header) are refused over plain
            // http. The user info is judged on the resolved URL the error names: resolving against a
            // base URL with no authority (`http:e/..//x-p@se`) can make one out of its path.
            let refusedCredentials = error.code == .credentialsOverPlainHTTP && (url.contains("@") || (error.url ?? "").contains("@")
                || request.headerFields[.authorization] != nil || request.headerFields[.proxyAuthorization] != nil)
            require([.invalidURL, .unsupportedScheme].contains(error.code) || refusedCredentials, "unexpected failure \(error.code): \(error)")
        }
    case .success(let prepared):
        require(expected == nil, "expected \(expected!), but the request was prepared")
        require(prepared.method.rawValue == methodName, "method \(methodName.debugDescription) became \(prepared.method)")
        for line in prepared.headerLines {
            require(!line.hasLineBreakingByte, "header line \(line.debugDescription) holds CR, LF or NUL")
            let name = line.prefix { $0 != ":" && $0 != ";" }
            require(String(name).isHTTPToken && name.count < line.count, "header line \(line.debugDescription) has no token name")
        }
        checkURL(prepared.url, queryItems: queryItems)
    }
    return 0
}

private func checkURL(_ url: String, queryItems: [URLQueryItem]) {
    require(url.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "prepared URL \(url.debugDescription) holds a space, control or non-ASCII byte")
    require(!url.contains("#"), "prepared URL \(url.debugDescription) keeps a fragment")
    let lower = url.lowercased()
    require(lower.hasPrefix("http://") || lower.hasPrefix("https://"), "prepared URL \(url.debugDescription) is not http(s)")
    for item in queryItems where !item.name.isEmpty {
        require(url.contains(PercentEncoding.encoded(item.name)), "query item \(item.name.debugDescription) missing from \(url)")
    }
    // A URL curl refuses fails at send time (CURLE_URL_MALFORMAT, invalidURL): late, not unsafe.
    // Foundation accepts some that curl refuses (a port above 65535, `[fe80::!]`); reported to the
    // lead for resolveURL (PreparedRequest.swift).
    guard let curl = CurlURLView(url) else { return }
    // No origin (a host Foundation cannot decode, `ex%82mple.com`) matches no credential: safe.
    guard let origin = Credential.Origin(url) else { return }
    // Foundation shows an IDNA host decoded (`bücher.example`), curl as sent (`xn--bcher-kva.example`):
    // the same name, so a pair where either side is internationalised is not compared by text.
    let internationalised = curl.host.contains("xn--") || origin.host.unicodeScalars.contains { !$0.isASCII }
    require(
        curl.scheme == origin.scheme && (sameHost(curl.host, origin.host) || internationalised) && curl.port == origin.port,
        "libcurl reads \(url.debugDescription) as \(curl), CurlBridge as \(origin)")
}
