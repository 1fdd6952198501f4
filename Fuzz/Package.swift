// swift-tools-version:6.0
import PackageDescription

/// libFuzzer targets for CurlBridge's parsers and decisions. A separate package, so the library's
/// normal build never compiles them; `scripts/fuzz.sh TARGET SECONDS` builds one with
/// `-sanitize=fuzzer,address` (release, `-enable-testing` for `@testable import`) and runs it on
/// its seed corpus in `Corpus/TARGET/`.
let package = Package(
    name: "CurlBridgeFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "CurlBridge", path: ".."),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
    ],
    targets: [
        // libcurl's URL parser, for the targets that compare CurlBridge's view of a URL with curl's.
        .systemLibrary(name: "CCurlFuzz", pkgConfig: "libcurl"),
        // Reading typed values from the fuzzer's bytes, invariant checks, a loopback peer.
        .target(name: "FuzzSupport", dependencies: [
            "CCurlFuzz", .product(name: "CurlBridge", package: "CurlBridge"), .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
        .executableTarget(name: "FuzzRequest", dependencies: fuzzTargetDependencies),
        .executableTarget(name: "FuzzForm", dependencies: fuzzTargetDependencies),
        .executableTarget(name: "FuzzMultipart", dependencies: fuzzTargetDependencies),
        .executableTarget(name: "FuzzResponseHead", dependencies: fuzzTargetDependencies),
        .executableTarget(name: "FuzzRedirect", dependencies: fuzzTargetDependencies),
        .executableTarget(name: "FuzzCacheControl", dependencies: fuzzTargetDependencies),
        .executableTarget(name: "FuzzHTTPDate", dependencies: fuzzTargetDependencies),
        .executableTarget(name: "FuzzCacheEntry", dependencies: fuzzTargetDependencies),
        .executableTarget(name: "FuzzJournal", dependencies: fuzzTargetDependencies),
    ],
    swiftLanguageModes: [.v6]
)

var fuzzTargetDependencies: [Target.Dependency] {
    [
        "FuzzSupport", "CCurlFuzz",
        .product(name: "CurlBridge", package: "CurlBridge"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
    ]
}
