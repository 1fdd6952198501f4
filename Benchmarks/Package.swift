// swift-tools-version:6.0
import PackageDescription

/// Benchmarks of CurlBridge against raw libcurl, Foundation's URLSession and AsyncHTTPClient.
/// A separate package, so the library itself never depends on its peers. `run.sh` builds it,
/// starts nginx and runs every client on the same workloads.
let package = Package(
    name: "CurlBridgeBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bench-curlbridge", targets: ["BenchCurlBridge"]),
        .executable(name: "bench-libcurl", targets: ["BenchLibcurl"]),
        .executable(name: "bench-swift-floor", targets: ["BenchSwiftFloor"]),
        .executable(name: "bench-urlsession", targets: ["BenchURLSession"]),
        .executable(name: "bench-ahc", targets: ["BenchAHC"]),
        .executable(name: "bench-multipart-upload", targets: ["BenchMultipartUpload"]),
        .executable(name: "bench-upload-sink", targets: ["BenchUploadSink"]),
    ],
    dependencies: [
        .package(name: "CurlBridge", path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
    ],
    targets: [
        // Arguments, latency statistics, resource sampling and the JSON line, shared by the Swift clients.
        .target(name: "BenchSupport"),
        .executableTarget(
            name: "BenchCurlBridge",
            dependencies: ["BenchSupport", .product(name: "CurlBridge", package: "CurlBridge")]
        ),
        // Raw libcurl in C: the physical limit of any curl-based client.
        .executableTarget(
            name: "BenchLibcurl",
            cSettings: [.define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("pthread")]
        ),
        // The least a Swift client over libcurl spends: raw libcurl's work plus handing each
        // response back in Swift, and nothing else (issue 37's floor).
        .target(
            name: "CBenchSwiftFloor",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        .executableTarget(
            name: "BenchSwiftFloor",
            dependencies: ["BenchSupport", "CBenchSwiftFloor", .product(name: "CurlBridge", package: "CurlBridge")]
        ),
        // The upload workload's receiver: reads every body to the end, then answers with its size.
        .executableTarget(
            name: "BenchUploadSink",
            cSettings: [.define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("pthread")]
        ),
        // One large multipart upload through CurlBridge: throughput and peak RSS (issue 4).
        .executableTarget(
            name: "BenchMultipartUpload",
            dependencies: [.product(name: "CurlBridge", package: "CurlBridge")]
        ),
        .executableTarget(
            name: "BenchURLSession",
            dependencies: ["BenchSupport"]
        ),
        .executableTarget(
            name: "BenchAHC",
            dependencies: [
                "BenchSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
