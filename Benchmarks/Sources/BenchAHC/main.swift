import AsyncHTTPClient
import BenchSupport
import NIOCore
import NIOSSL

// AsyncHTTPClient 1.37 on NIO's singleton event loop group:
//   bench-ahc --url URL --requests N --concurrency C …
// C child tasks, each executing one HTTPClientRequest at a time (sequential when C is 1); the
// body is read as it arrives and written to --output, never collected.

let arguments = BenchArguments.fromCommandLine()
let run = BenchRun(client: "ahc", arguments: arguments)

var tls = TLSConfiguration.makeClientConfiguration()
if let path = arguments.cacert {
    tls.trustRoots = .file(path)
}
var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
configuration.connectionPool = .init(
    idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: arguments.concurrency)
let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
let request = HTTPClientRequest(url: arguments.url)

run.measure {
    AsyncWorkers.block {
        await AsyncWorkers.run(concurrency: arguments.concurrency, requests: arguments.requests) { _ in
            let start = monotonicNanoseconds()
            var bytes = 0
            do {
                let response = try await client.execute(request, timeout: .seconds(120))
                for try await buffer in response.body {
                    bytes += buffer.readableBytes
                    run.sink.write(contentsOf: buffer.readableBytesView)
                }
                if (200..<300).contains(response.status.code) {
                    run.record(since: start, bytes: bytes)
                } else {
                    run.record(since: start, bytes: bytes, error: "status \(response.status.code)")
                }
            } catch {
                run.record(since: start, bytes: bytes, error: "\(error)")
            }
        }
    }
}
AsyncWorkers.block {
    try? await client.shutdown()
}
run.finish()
