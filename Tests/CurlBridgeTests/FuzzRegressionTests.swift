@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Testing

/// Inputs the fuzz targets (Fuzz/, `scripts/fuzz.sh`) found, kept as unit tests so the fix stays.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// FuzzRedirect: libcurl connects `http://0x7f.1/` to 127.0.0.1, but the origin check read the
    /// host as the text `0x7f.1`, so the two disagreed on where a request goes.
    @Test("An IPv4 address in another notation has the origin curl connects to", arguments: [
        "http://0x7f.1/", "http://2130706433/", "http://0177.0.0.1/", "http://127.1/", "HTTP://0X7F.0.0.1/",
    ])
    func ipv4NotationsShareTheDottedOrigin(url: String) throws {
        let origin = try #require(Credential.Origin(url))
        #expect(origin == Credential.Origin(scheme: "http", host: "127.0.0.1"))
        #expect(origin.description == "http://127.0.0.1:80")
    }

    /// FuzzRequest: Foundation's URLComponents gives the host of `https://[::1]:8443/` with its
    /// brackets, so the origin held `[::1]` (printed `[[::1]]`) instead of `::1` as documented, and
    /// never equalled the origin a caller writes for that address.
    @Test("An IPv6 literal's origin has no brackets, from a URL or from its parts")
    func ipv6OriginWithoutBrackets() throws {
        let origin = try #require(Credential.Origin("https://[::1]:8443/p"))
        #expect(origin.host == "::1")
        #expect(origin == Credential.Origin(scheme: "https", host: "::1", port: 8443))
        #expect(origin == Credential.Origin(scheme: "https", host: "[::1]", port: 8443))
        #expect(origin.description == "https://[::1]:8443")
    }

    @Test("Host names that only look numeric keep their text", arguments: [
        "http://0x7f.example/", "http://1.2.3.4.5/", "http://127.0.0.1./", "http://deadbeef/",
    ])
    func namesAreNotAddresses(url: String) throws {
        let origin = try #require(Credential.Origin(url))
        let host = try #require(URLComponents(string: url)?.host)
        #expect(origin.host == host.lowercased())
    }

    @Test("A redirect to the same address in another notation is same-origin, one elsewhere is not")
    func redirectToAnotherNotationOfTheSameAddress() throws {
        let request = Request.get("http://127.0.0.1:8080/a").header("X-Custom", "kept")
        func decide(_ location: String) -> RedirectStep {
            var fields = HTTPFields()
            fields[.location] = location
            let head = ResponseHead(status: .found, headerFields: fields, httpVersion: .http1_1, url: request.url)
            return RedirectStep.decide(
                head, request: request, url: request.url, hopsSoFar: 0, visited: [], policy: .standard, defaultHeaders: [:])
        }
        guard case .follow(let same, _) = decide("http://0x7f.1:8080/b") else {
            Issue.record("the redirect was not followed")
            return
        }
        #expect(same.headerFields[HTTPField.Name("X-Custom")!] == "kept")
        guard case .follow(let other, _) = decide("http://0x7f.2:8080/b") else {
            Issue.record("the redirect was not followed")
            return
        }
        #expect(other.headerFields[HTTPField.Name("X-Custom")!] == nil)
    }

    /// FuzzRedirect: Locations that Foundation resolves but curl refuses were followed, and the
    /// next transfer failed in curl's URL parser: `https://a.example:99999/` (a port above 65535)
    /// and `https:\u{FFFD}//example.com/` (an https URL without a host).
    @Test("A Location curl cannot connect to is a protocol error", arguments: [
        "https://a.example:99999/", "https:\u{FFFD}//example.com/",
    ])
    func locationCurlCannotConnectTo(location: String) {
        let request = Request.get("https://a.example/")
        var fields = HTTPFields()
        fields[.location] = location
        let head = ResponseHead(status: .found, headerFields: fields, httpVersion: .http1_1, url: request.url)
        let step = RedirectStep.decide(
            head, request: request, url: request.url, hopsSoFar: 0, visited: [], policy: .standard, defaultHeaders: [:])
        guard case .fail(let error) = step else {
            Issue.record("expected a failure, got \(step)")
            return
        }
        #expect(error.code == .protocolError)
    }

    /// FuzzResponseHead: an obs-fold continuation line (RFC 9112 §5.2) passed the head checks, and
    /// curl appends it to the previous field: `Content-Length: 5` then ` 12` reached the caller as
    /// `Content-Length: 5 12` while curl read a 5-byte body. A fold of a framing field is refused.
    @Test("An obs-fold continuation of Content-Length is protocolError", arguments: ClientStyle.allCases)
    func obsFoldIsRefused(style: ClientStyle) async throws {
        let server = try ScriptedServer([Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n 12\r\n\r\nhello".utf8)])
        let error = await style.send(.get(server.url), through: Transport()).failure
        #expect(error?.code == .protocolError)
    }

    /// FuzzResponseHead: libcurl 7.88 itself refuses a header line that has no colon before the
    /// first CR (its header API stores every line as name and value), failing the transfer with
    /// CURLE_BAD_FUNCTION_ARGUMENT (43) before the header callback sees the line; CurlBridge mapped
    /// that to transportFailure, which blamed the client for the server's malformed head.
    @Test("A header line with a bare CR and no colon, refused by curl itself, is protocolError", arguments: ClientStyle.allCases)
    func headerLineWithBareCRAndNoColon(style: ClientStyle) async throws {
        let server = try ScriptedServer([Data("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer\rEncoding: chunked\r\n\r\nabc".utf8)])
        let error = await style.send(.get(server.url), through: Transport()).failure
        #expect(error?.code == .protocolError)
    }

    /// FuzzResponseHead (under AddressSanitizer): libcurl before 8.1.0 keeps a pointer to a
    /// transfer's last response header after freeing it, and a reused easy handle whose next
    /// response starts with a folded line unfolds that line into the freed header — a
    /// use-after-free any server can cause. Transports no longer reuse handles on such a libcurl.
    /// Without AddressSanitizer the corruption is silent, so the test checks what prevents it: no
    /// handle was reused (with reuse forced on, the count check fails and the error is the same).
    @Test("A response whose first header line is folded, after another on the same transport, is a protocol error", arguments: ClientStyle.allCases)
    func foldedFirstHeaderLineAfterAnotherResponse(style: ClientStyle) async throws {
        let server = try ScriptedServer([
            Data("HTTP/1.1 200 OK\r\nX-Fold: a\r\n continued\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8),
            Data("HTTP/1.1 200 OK\r\n folded\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8),
        ])
        let transport = Transport()
        let first = try await style.send(.get(server.url), through: transport).get()
        #expect(first.status == .ok)
        let error = await style.send(.get(server.url), through: transport).failure
        #expect(error?.code == .protocolError, "\(String(describing: error))")
        if !CurlGlobal.clearsHeaderStateOnReuse {
            #expect(transport.reusedEasyHandleCount == 0, "a handle was reused on a libcurl where that is unsafe")
        }
    }

    // MARK: The cache's parsers (FuzzHTTPDate, FuzzCacheControl, FuzzCacheEntry)

    /// FuzzHTTPDate: `format` turned the instant into an `Int` unchecked (a trap beyond ±2^63 s,
    /// for NaN and the infinities) and wrote a year below 1000 with fewer than four digits
    /// (`Sat, 01 Jan 0 00:00:00 GMT`), which is no HTTP date: `parse` refused what `format`
    /// wrote. It now writes four digits and, outside the years 0000–9999, the nearest second it can.
    @Test("HTTPDate.format writes four-digit years, outside 0000-9999 the nearest second, and never traps", arguments: [
        (-62_167_219_200, "Sat, 01 Jan 0000 00:00:00 GMT"), (-61_000_000_000, "Fri, 26 Dec 0036 11:33:20 GMT"),
        (253_402_300_799.5, "Fri, 31 Dec 9999 23:59:59 GMT"), (1e300, "Fri, 31 Dec 9999 23:59:59 GMT"),
        (-1e300, "Sat, 01 Jan 0000 00:00:00 GMT"), (.infinity, "Fri, 31 Dec 9999 23:59:59 GMT"),
        (-.infinity, "Sat, 01 Jan 0000 00:00:00 GMT"), (.nan, "Sat, 01 Jan 0000 00:00:00 GMT"),
    ] as [(Double, String)])
    func httpDateFormatsEveryInstant(instant: Double, expected: String) {
        let formatted = HTTPDate.format(Date(timeIntervalSince1970: instant))
        #expect(formatted == expected)
        #expect(HTTPDate.parse(formatted).map(HTTPDate.format) == formatted)
    }

    /// FuzzHTTPDate: the date's numbers were read with `Int(_:)`, which takes a sign, so
    /// `+8:49:37` was a time and `-994` a year (one `format` cannot write); and a leap second at
    /// the end of 9999 named the year 10000.
    @Test("HTTPDate.parse takes digits only, and no date after 9999", arguments: [
        "Sun, 06 Nov 1994 +8:49:37 GMT", "Sun, 06 Nov -994 08:49:37 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
        "Sunday, +6-Nov-94 08:49:37 GMT", "Sun Nov +6 08:49:37 1994", "Sun Nov 006 08:49:37 1994", "Fri, 31 Dec 9999 23:59:60 GMT",
    ])
    func httpDateNumbersAreDigits(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    /// FuzzCacheControl (against RFC 9110's grammar): a quoted string ended at its first `"`, even
    /// an escaped one (`\"`, a quoted-pair), and the rest of it was read as directives — so text
    /// inside an extension's quoted string could add `public` and a `max-age` to a response to a
    /// credentialed request. Also: a `"` or `,` followed by a combining mark was one character
    /// (a grapheme cluster), not a delimiter; a number too large for an `Int` read as
    /// 2,147,483,647, smaller than a number that fits (now every number past 2^31 - 1 is that,
    /// RFC 9111 §1.2.2); `max-stale=abc` allowed any staleness.
    @Test("Cache-Control: quoted-pairs and combining marks stay inside a quoted string; huge numbers are the largest")
    func cacheControlByTheGrammar() {
        let escaped = CacheControl([.cacheControl: #"ext="a\", public, max-age=999999, b=\"", max-age=0, private"#])
        #expect(escaped.maxAge == 0 && !escaped.isPublic && escaped.isPrivate)
        let marked = CacheControl([.cacheControl: "ext=\"\u{301}, no-store, max-age=60, x=\", max-age=5"])
        #expect(!marked.noStore && marked.maxAge == 5)
        #expect(CacheControl([.cacheControl: "max-age=99999999999999999999"]).maxAge == Int(Int32.max))
        #expect(CacheControl([.cacheControl: "max-age=9223372036854775000"]).maxAge == Int(Int32.max), "never more than a larger number")
        #expect(CacheControl([.cacheControl: "max-stale=abc"]).maxStale == nil)
        #expect(CacheControl([.cacheControl: "max-stale"]).maxStale == .some(nil))
    }

    @Test("A quoted string cannot smuggle public and max-age into the response to a credentialed request")
    func quotedPairCannotMakeACredentialedResponseStorable() async throws {
        let server = try await Fixture.server()
        let origin = CountedOrigin(server) { number, _ in
            CountedOrigin.answer("alice's \(number)", [("Cache-Control", #"ext="\", public, max-age=600, x=\"", max-age=0"#)])
        }
        let (transport, _) = try cachingTransport(server)
        let request = Request.get(String(origin.path.dropFirst())).header("Authorization", "Bearer alice")
        _ = try await AsyncClient(transport: transport).send(request)
        let second = try await AsyncClient(transport: transport).send(request)
        #expect(second.cacheStatus == .miss && String(decoding: second.body, as: UTF8.self) == "alice's 2")
        #expect(origin.count == 2)
    }

    /// FuzzCacheControl: a hit's `Age` field was `String(Int(age))`, and `Int(_:)` traps above
    /// `Int.max`: a server sending `Age: 9223372036854775807` (an `Int`, read as it is) crashed
    /// the process at the next request that may take a stale response.
    @Test("A stored response with an Age near Int.max is served with an Age of at least 2^31 - 1, not a trap")
    func hugeAgeIsServed() async throws {
        let server = try await Fixture.server()
        let origin = CountedOrigin(server) { number, _ in
            CountedOrigin.answer("body \(number)", [("Cache-Control", "max-age=60"), ("Age", "9223372036854775807")])
        }
        let (transport, _) = try cachingTransport(server)
        let client = AsyncClient(transport: transport)
        let path = String(origin.path.dropFirst())
        _ = try await client.send(.get(path))
        let offline = try await client.send(.get(path).cachePolicy(.returnCacheDataElseLoad))
        let maxStale = try await client.send(.get(path).header("Cache-Control", "max-stale"))
        for response in [offline, maxStale] {
            #expect(response.cacheStatus == .staleServed && String(decoding: response.body, as: UTF8.self) == "body 1")
            #expect(response.headerFields[HTTPField.Name("Age")!].flatMap { Int($0) }.map { $0 >= Int(Int32.max) } == true)
        }
        #expect(origin.count == 1)
    }

    /// FuzzCacheControl: a 304's fields were appended to the stored response's (and its
    /// `Set-Cookie` to those), and `HTTPFields` traps on its 65,535th field: a server answering
    /// with 40,000 short fields, then a 304 with 30,000 others (each head under the 256 KiB
    /// limit), crashed the process.
    @Test("A 304 whose fields and the stored ones are more than a response holds updates it without a trap")
    func notModifiedBeyondTheFieldLimit() async throws {
        let server = try await Fixture.server()
        let origin = CountedOrigin(server) { _, request in
            if request.header("If-None-Match") == "\"v\"" {
                return CountedOrigin.answer("", status: 304, [("ETag", "\"v\""), ("Set-Cookie", "s=1")] + Array(repeating: ("b", "2"), count: 30_000))
            }
            return CountedOrigin.answer("body", [("Cache-Control", "max-age=0"), ("ETag", "\"v\"")] + Array(repeating: ("a", "1"), count: 40_000))
        }
        let (transport, _) = try cachingTransport(server)
        let client = AsyncClient(transport: transport)
        let path = String(origin.path.dropFirst())
        _ = try await client.send(.get(path))
        let revalidated = try await client.send(.get(path))
        #expect(revalidated.cacheStatus == .revalidated && String(decoding: revalidated.body, as: UTF8.self) == "body")
        #expect(revalidated.headerFields.count == StoredResponse.maximumFieldCount)
        #expect(origin.count == 2)
    }

    /// FuzzCacheEntry (a file sealed with the key, as a disk returning garbage or anyone holding
    /// the key writes it): an entry with 65,535 header fields or more passed every check and
    /// trapped in `HTTPFields` when it was read to be served.
    @Test("An entry file with more header fields than a response holds is refused, not a trap")
    func entryWithTooManyFields() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await offThePool { try DiskCacheStore(directory: directory, limit: 1 << 30) }
        let url = "https://bank.example/api"
        let response = StoredResponse(
            url: url, partition: "p", status: .ok, headerFields: [.cacheControl: "max-age=60"], httpVersion: .http1_1,
            body: Data("12345".utf8), requestTime: Date(timeIntervalSince1970: 1_000), responseTime: Date(timeIntervalSince1970: 1_001),
            variant: [:])
        store.store(response, persistent: true)
        try await offThePool { store.flush() }
        var metadata = CacheEntryFile.metadata(of: response)
        metadata.fields = Array(repeating: ["a", "1"], count: 70_000)
        let json = try JSONEncoder().encode(metadata)
        var data = Data(CacheEntryFile.magic)
        withUnsafeBytes(of: UInt32(json.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(json)
        data.append(response.body)
        data.append(contentsOf: CacheEntryFile.seal(data, keyedHash: store.keyedHash))
        let name = CacheEntryFile.name(url: url, partition: "p", variant: [:], keyedHash: store.keyedHash)
        try data.write(to: store.directory.url.appendingPathComponent(name))

        #expect(CacheEntryFile.decode(data, keyedHash: store.keyedHash) == nil)
        #expect(store.variants(of: url, partition: "p").isEmpty)
    }

    /// FuzzCacheControl: `returnCacheDataDontLoad` promises never to send a request (a transport
    /// without a cache fails it with notCached), but the cache passed on what it keeps out of —
    /// a POST, a `no-store` request — and a conditional request its stored response could not
    /// answer with a 304, and each reached the server.
    @Test("returnCacheDataDontLoad sends nothing: not a POST, a no-store or a conditional request", arguments: ClientStyle.allCases)
    func returnCacheDataDontLoadNeverSends(style: ClientStyle) async throws {
        let server = try await Fixture.server()
        let origin = CountedOrigin(server) { number, _ in
            CountedOrigin.answer("body \(number)", [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
        }
        let (transport, _) = try cachingTransport(server)
        let path = String(origin.path.dropFirst())
        _ = try await style.send(.get(path), through: transport).get()

        let conditional = await style.send(.get(path).header("If-None-Match", "\"v0\"").cachePolicy(.returnCacheDataDontLoad), through: transport)
        let noStore = await style.send(.get(path).header("Cache-Control", "no-store").cachePolicy(.returnCacheDataDontLoad), through: transport)
        let post = await style.send(Request.post(path).cachePolicy(.returnCacheDataDontLoad), through: transport)

        #expect(origin.count == 1)
        #expect(post.failure?.code == .notCached)
        #expect(noStore.failure?.code == .notCached)
        let answered = try conditional.get()
        #expect(answered.status == .ok && answered.cacheStatus == .hit && String(decoding: answered.body, as: UTF8.self) == "body 1")
    }
}
