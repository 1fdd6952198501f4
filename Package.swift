// swift-tools-version:6.1
import PackageDescription

/// The dependencies of a product that only its trait brings.
let testServer = TargetDependencyCondition.when(traits: ["TestServer"])
let telemetry = TargetDependencyCondition.when(traits: ["Telemetry"])
let openAPI = TargetDependencyCondition.when(traits: ["OpenAPI"])
// For the targets that compile the documentation's samples: a sample that uses a deprecated
// declaration fails, like one that no longer compiles.
let deprecationsAreErrors: [SwiftSetting] = [.unsafeFlags(["-Werror", "DeprecatedDeclaration"])]

let package = Package(
    name: "CurlBridge",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CurlBridge", targets: ["CurlBridge"]),
        // For testing apps that use CurlBridge: canned responses and a request record over a
        // stubbed transport (no network). Needs nothing but the core.
        .library(name: "CurlBridgeTesting", targets: ["CurlBridgeTesting"]),
        // `Response.json()` and `propertyList()`, the untyped parsers into Foundation objects
        // (`NSNumber`, `NSNull`): full Foundation, which the core does not link (it is compiled
        // against FoundationEssentials, DESIGN.md "FoundationEssentials").
        .library(name: "CurlBridgeFoundation", targets: ["CurlBridgeFoundation"]),
        // The embedded loopback HTTP server (HTTP/1.1, HTTP/2 over TLS, faults, routes of your
        // own), on SwiftNIO: only with the `TestServer` trait.
        .library(name: "CurlBridgeTestServer", targets: ["CurlBridgeTestServer"]),
        // swift-metrics and swift-distributed-tracing over the core's event monitors and
        // interceptors: only with the `Telemetry` trait.
        .library(name: "CurlBridgeTelemetry", targets: ["CurlBridgeTelemetry"]),
        // A swift-openapi-runtime ClientTransport over AsyncClient: only with the `OpenAPI` trait.
        .library(name: "CurlBridgeOpenAPI", targets: ["CurlBridgeOpenAPI"]),
    ],
    // Each trait brings the dependencies of one optional product. An app that names none resolves
    // and builds only the core's: swift-http-types and swift-log (scripts/downstream-check.sh).
    // This package's own builds enable all three (scripts/test.sh, scripts/demo.sh).
    traits: [
        .trait(name: "TestServer", description: "CurlBridgeTestServer: the loopback test server, on SwiftNIO."),
        .trait(name: "Telemetry", description: "CurlBridgeTelemetry: swift-metrics and swift-distributed-tracing."),
        .trait(name: "OpenAPI", description: "CurlBridgeOpenAPI: a swift-openapi-runtime client transport."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.35.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.25.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // CurlBridgeOpenAPI only.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.8.0"),
        // DocC documentation: `swift package generate-documentation` (scripts/docs.sh). A plugin
        // only: nothing of it is linked into any product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // The `cb` example command-line tool (Examples/cb) parses its arguments with it.
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
    ],
    targets: [
        // libcurl, found through pkg-config, with typed wrappers for its variadic calls.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "CurlBridge",
            dependencies: [
                "CCurl",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Metrics and tracing for CurlBridge: an event monitor and an interceptor, public API only.
        .target(
            name: "CurlBridgeTelemetry",
            dependencies: [
                "CurlBridge",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics", condition: telemetry),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: telemetry),
                .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: telemetry),
            ]
        ),
        // The OpenAPI client transport: streamed bodies both ways, RequestError inside ClientError.
        .target(
            name: "CurlBridgeOpenAPI",
            dependencies: [
                "CurlBridge",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: openAPI),
            ]
        ),
        // The core's parsers into Foundation objects; the one library target that imports Foundation.
        .target(name: "CurlBridgeFoundation", dependencies: ["CurlBridge"]),
        // Canned responses and a request record over `Transport(configuration:stub:)`.
        .target(
            name: "CurlBridgeTesting",
            dependencies: ["CurlBridge", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // Embedded loopback HTTP server for tests and examples (HTTP/1.1, HTTP/2 over TLS with a
        // test CA, routes of your own).
        .target(
            name: "CurlBridgeTestServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio", condition: testServer),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: testServer),
                .product(name: "NIOPosix", package: "swift-nio", condition: testServer),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: testServer),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: testServer),
                .product(name: "NIOTLS", package: "swift-nio", condition: testServer),
                .product(name: "NIOHTTP2", package: "swift-nio-http2", condition: testServer),
                .product(name: "NIOHPACK", package: "swift-nio-http2", condition: testServer),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras", condition: testServer),
                .product(name: "MultipartKit", package: "multipart-kit", condition: testServer),
                .product(name: "Crypto", package: "swift-crypto", condition: testServer),
            ]
        ),
        // A child process the tests start: the blocking guard on the real main thread and on the
        // main queue after `dispatchMain()`, and resource accounting with no other test running.
        .executableTarget(
            name: "CurlBridgeProbe",
            dependencies: ["CurlBridge", "CurlBridgeTestServer"]
        ),
        // Cancellation storms, the leak soak and the download queue's crash proof
        // (scripts/cancel-storm.sh, scripts/soak.sh, scripts/queue-crash-test.sh): load generators
        // with their own options and figures, run by the storm tests as a child process.
        .executableTarget(
            name: "CurlBridgeStorm",
            dependencies: [
                "CurlBridge", "CurlBridgeTestServer", .product(name: "HTTPTypes", package: "swift-http-types"),
                // queue-crash's SHA-256 of the expected and the downloaded files.
                .product(name: "Crypto", package: "swift-crypto", condition: testServer),
            ]
        ),
        .executableTarget(
            name: "BlockingWorkers",
            dependencies: ["CurlBridge", "CurlBridgeTestServer"],
            path: "Examples/BlockingWorkers"
        ),
        .executableTarget(
            name: "AsyncTasks",
            dependencies: ["CurlBridge", "CurlBridgeTestServer"],
            path: "Examples/AsyncTasks"
        ),
        .executableTarget(
            name: "LegacyCallbacks",
            dependencies: ["CurlBridge", "CurlBridgeTestServer"],
            path: "Examples/LegacyCallbacks"
        ),
        // Examples that read as documentation (issue 12, part 5), each against the embedded server.
        .executableTarget(
            name: "PlayWhileDownloading",
            dependencies: ["CurlBridge", "CurlBridgeTestServer"],
            path: "Examples/PlayWhileDownloading"
        ),
        .executableTarget(
            name: "ResumableDownloader",
            dependencies: ["CurlBridge", "CurlBridgeTestServer"],
            path: "Examples/ResumableDownloader"
        ),
        // `cb`, a curl-like command-line tool over CurlBridge (Examples/cb/README.md).
        .executableTarget(
            name: "cb",
            dependencies: [
                "CurlBridge",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Examples/cb",
            exclude: ["README.md"]
        ),
        // The documentation's code: every ```swift block of README.md and of the DocC articles
        // compiles as part of DocumentationSamples (the article's CurlBridge code) or
        // CurlBridgeOpenAPITests (the OpenAPI articles, against its generated client); each
        // target's Articles/<Name>.swift declares what <Name>.md assumes (scripts/docs.sh).
        .target(name: "DocumentationSampleExtraction"),
        .executableTarget(name: "DocumentationSampleExtractor", dependencies: ["DocumentationSampleExtraction"]),
        .plugin(
            name: "ExtractDocumentationSamples",
            capability: .buildTool(),
            dependencies: ["DocumentationSampleExtractor"]
        ),
        .testTarget(name: "DocumentationSampleExtractionTests", dependencies: ["DocumentationSampleExtraction"]),
        .testTarget(
            name: "DocumentationSamples",
            dependencies: [
                "CurlBridge", "CurlBridgeFoundation", "CurlBridgeTestServer", "CurlBridgeTelemetry", "CurlBridgeTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: deprecationsAreErrors,
            plugins: ["ExtractDocumentationSamples"]
        ),
        .testTarget(
            name: "CurlBridgeTests",
            dependencies: [
                "CurlBridge", "CCurl", "CurlBridgeFoundation", "CurlBridgeTestServer", "CurlBridgeTelemetry", "CurlBridgeTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The transport against the embedded server, through a client generated from openapi.yaml
        // by scripts/generate-openapi.sh (committed: CI never builds the generator).
        .testTarget(
            name: "CurlBridgeOpenAPITests",
            dependencies: [
                "CurlBridge", "CurlBridgeOpenAPI", "CurlBridgeTestServer", "CurlBridgeTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["openapi.yaml"],
            swiftSettings: deprecationsAreErrors,
            plugins: ["ExtractDocumentationSamples"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
