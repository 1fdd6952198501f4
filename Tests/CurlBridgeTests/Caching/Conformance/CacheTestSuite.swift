import Foundation

/// One suite file of http-tests/cache-tests (such as `cc-freshness`), as exported to
/// `Tests/cache-tests/tests.json` by `scripts/cache-tests-export.sh`.
struct CacheTestSuite: Decodable, Sendable {
    /// The suite's stable identifier, e.g. `"cc-freshness"`.
    let id: String
    /// The suite's tests, in the suite's order.
    let tests: [CacheTest]

    /// The exported suites, in the order of the suite's `tests/index.mjs`, read from the
    /// package's `Tests/cache-tests/tests.json`.
    static func loadExported() throws -> [CacheTestSuite] {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Conformance
            .deletingLastPathComponent()  // Caching
            .deletingLastPathComponent()  // CurlBridgeTests
            .deletingLastPathComponent()  // Tests
            .appendingPathComponent("cache-tests/tests.json")
        return try JSONDecoder().decode([CacheTestSuite].self, from: Data(contentsOf: url))
    }
}

/// One test: requests played in order against one cache and the origin, with the checks each
/// request names.
///
/// The suite's `browser_only` tests are about private caches, so they are run like the others;
/// its `browser_skip` flag matters only for ``sharedCacheOnly``.
struct CacheTest: Decodable, Sendable {
    /// What a failure of the test means (the suite's `kind`).
    enum Kind: String, Decodable, Sendable {
        /// A MUST-level requirement of the specification; the default when `kind` is missing.
        case required
        /// SHOULD-level: the cache did not behave optimally, usually by not reusing a response it
        /// could have.
        case optimal
        /// Information about behaviour the specification leaves open; a failure is a "no".
        case check
    }

    /// The test's stable identifier, e.g. `"freshness-max-age"`.
    let id: String
    /// A concise description, which says whether the test is about a shared or private cache.
    let name: String
    let kind: Kind
    let requests: [CacheTestRequest]
    /// Tests whose failure makes this test's result meaningless.
    let dependsOn: [String]
    /// Whether only a CDN can run it (`cdn_only`, the `CDN-Cache-Control` tests).
    let cdnOnly: Bool
    /// Whether the suite skips it for browser caches (`browser_skip`).
    let browserSkip: Bool

    /// Whether the test is about a shared cache. The suite has no flag for it (at the exported
    /// commit): such tests are skipped for browsers and say "shared" in their name, as in
    /// "Shared HTTP cache must prefer short `Cache-Control: s-maxage`…".
    var sharedCacheOnly: Bool {
        browserSkip && name.range(of: "shared", options: .caseInsensitive) != nil
    }

    /// Whether a request sends or expects interim (1xx) responses.
    var usesInterimResponses: Bool {
        requests.contains { $0.usesInterimResponses }
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, kind, requests
        case dependsOn = "depends_on"
        case cdnOnly = "cdn_only"
        case browserSkip = "browser_skip"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        kind = try container.decodeIfPresent(Kind.self, forKey: .kind) ?? .required
        requests = try container.decode([CacheTestRequest].self, forKey: .requests)
        dependsOn = try container.decodeIfPresent([String].self, forKey: .dependsOn) ?? []
        cdnOnly = try container.decodeIfPresent(Bool.self, forKey: .cdnOnly) ?? false
        browserSkip = try container.decodeIfPresent(Bool.self, forKey: .browserSkip) ?? false
    }
}
