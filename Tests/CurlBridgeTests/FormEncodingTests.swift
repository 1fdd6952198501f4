import CurlBridge
import CurlBridgeTestServer
import Foundation
import Testing

/// The URL-encoded form encoder, its options, and parameter placement.
@Suite(.hangGuard) struct FormEncodingTests {
    struct Profile: Encodable {
        var name = "Ada Lovelace"
        var tags = ["math", "engines"]
        var active = true
        var born = Date(timeIntervalSince1970: 0)
        var nickname: String? = nil
        var address = Address()
        var note = "a&b=c/é+~"
    }

    struct Address: Encodable {
        var city = "London"
        var zip = 12345
    }

    @Test(arguments: [
        (URLEncodedFormEncoder(), "active=1&address%5Bcity%5D=London&address%5Bzip%5D=12345&born=-978307200.0&name=Ada%20Lovelace&note=a%26b%3Dc%2F%C3%A9%2B~&tags%5B%5D=math&tags%5B%5D=engines"),
        (URLEncodedFormEncoder(arrayEncoding: .noBrackets), "tags=math&tags=engines"),
        (URLEncodedFormEncoder(arrayEncoding: .indexInBrackets), "tags%5B0%5D=math&tags%5B1%5D=engines"),
        (URLEncodedFormEncoder(boolEncoding: .literal), "active=true"),
        (URLEncodedFormEncoder(dateEncoding: .secondsSince1970), "born=0.0"),
        (URLEncodedFormEncoder(dateEncoding: .millisecondsSince1970), "born=0"),
        (URLEncodedFormEncoder(dateEncoding: .iso8601), "born=1970-01-01T00%3A00%3A00Z"),
        (URLEncodedFormEncoder(nilEncoding: .empty), "nickname="),
        (URLEncodedFormEncoder(spaceEncoding: .plus), "name=Ada+Lovelace"),
    ])
    func eachOptionChangesItsPart(encoder: URLEncodedFormEncoder, expectedPart: String) throws {
        let encoded = try encoder.encode(Profile())
        #expect(encoded.contains(expectedPart), "\(encoded)")
    }

    @Test func nilIsDroppedByDefaultAndKeysAreSortedStably() throws {
        let encoded = try URLEncodedFormEncoder().encode(Profile())
        #expect(!encoded.contains("nickname"))
        let names = encoded.split(separator: "&").map { $0.split(separator: "=")[0] }
        #expect(names == names.sorted())
        let unsorted = try URLEncodedFormEncoder(sortsKeys: false).encode(["b": 1, "a": 2].sorted { $0.key > $1.key }.reduce(into: [String: Int]()) { $0[$1.key] = $1.value })
        #expect(Set(unsorted.split(separator: "&")) == ["a=2", "b=1"])
    }

    @Test func customDateFormat() throws {
        let encoder = URLEncodedFormEncoder(dateEncoding: .custom { _ in "yesterday" })
        #expect(try encoder.encode(["when": Date()]) == "when=yesterday")
    }

    @Test func nonKeyedTopLevelIsRefused() {
        #expect(throws: EncodingError.self) { try URLEncodedFormEncoder().encode(["a", "b"]) }
        #expect(Request.get("http://x/").parameters([1, 2]).curlDescription().hasPrefix("# not sendable: encodingFailed"))
    }

    /// The pairs a real parser reads back from a query string or form body.
    func parsed(_ encoded: String, plusIsSpace: Bool) -> [String: [String]] {
        var components = URLComponents()
        components.percentEncodedQuery = plusIsSpace ? encoded.replacingOccurrences(of: "+", with: "%20") : encoded
        return (components.queryItems ?? []).reduce(into: [:]) { $0[$1.name, default: []].append($1.value ?? "") }
    }

    static let encoders: [(String, URLEncodedFormEncoder)] = [
        ("default", URLEncodedFormEncoder()),
        ("no brackets", URLEncodedFormEncoder(arrayEncoding: .noBrackets)),
        ("indexed", URLEncodedFormEncoder(arrayEncoding: .indexInBrackets)),
        ("literal bools", URLEncodedFormEncoder(boolEncoding: .literal)),
        ("epoch dates", URLEncodedFormEncoder(dateEncoding: .secondsSince1970)),
        ("iso dates", URLEncodedFormEncoder(dateEncoding: .iso8601)),
        ("empty nil", URLEncodedFormEncoder(nilEncoding: .empty)),
        ("plus spaces", URLEncodedFormEncoder(spaceEncoding: .plus)),
        ("unsorted", URLEncodedFormEncoder(sortsKeys: false)),
    ]

    @Test(arguments: ClientStyle.allCases, encoders.map(\.0))
    func parametersRoundTripThroughTheServerInQueryAndBody(style: ClientStyle, name: String) async throws {
        let encoder = try #require(Self.encoders.first { $0.0 == name }?.1)
        let plus = encoder.spaceEncoding == .plus
        let expected = parsed(try encoder.encode(Profile()), plusIsSpace: plus)
        #expect(expected["name"] == ["Ada Lovelace"] && expected["note"] == ["a&b=c/é+~"])
        let transport = Fixture.transport(try await Fixture.server())

        let get = try await style.send(Request.get("echo").query("page", "2").parameters(Profile(), encoder: encoder), through: transport).get().echo()
        var fromQuery = parsed(try #require(get.query), plusIsSpace: plus)
        #expect(fromQuery.removeValue(forKey: "page") == ["2"])
        #expect(fromQuery == expected)
        #expect(get.bodyLength == 0)

        let post = try await style.send(Request.post("echo").parameters(Profile(), encoder: encoder), through: transport).get().echo()
        #expect(post.query == nil)
        #expect(post.header("Content-Type") == ["application/x-www-form-urlencoded; charset=utf-8"])
        #expect(parsed(String(decoding: post.bodyData, as: UTF8.self), plusIsSpace: plus) == expected)
    }

    @Test(arguments: [("GET", true), ("HEAD", true), ("DELETE", true), ("POST", false), ("PUT", false), ("PATCH", false)])
    func methodDecidesWhereParametersGo(method: String, inQuery: Bool) throws {
        let description = Request(method: method, url: "http://x/p").parameters(["a": 1]).curlDescription()
        #expect(description.contains("'http://x/p?a=1'") == inQuery, "\(description)")
        #expect(description.contains("--data-binary 'a=1'") == !inQuery, "\(description)")
    }

    @Test func destinationCanBeForced() {
        #expect(Request.post("http://x/p").parameters(["a": 1], destination: .queryString).curlDescription().contains("'http://x/p?a=1'"))
        #expect(Request.get("http://x/p").parameters(["a": 1], destination: .httpBody).curlDescription().contains("--data-binary 'a=1'"))
    }
}
