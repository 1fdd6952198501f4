import AsyncHTTPClient
import BenchSupport
import NIOCore
import NIOSSL

// AsyncHTTPClient 1.37 on NIO's singleton event loop group:
//   bench-ahc --url URL --requests N --concurrency C …
// C child tasks, each executing one request at a time (sequential when C is 1):
// - by default a GET whose body is read as it arrives and written to --output, never collected
//   (paced with --consume-rate: AHC's response body has backpressure);
// - with --stream --transfer download, a GET through FileDownloadDelegate writing --output;
// - with --upload PATH, a POST whose body streams from the file.
// (Transfers.swift has all three.)

let arguments = BenchArguments.fromCommandLine()
let run = BenchRun(client: arguments.transfer == .download ? "ahc-download" : "ahc", arguments: arguments)

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
            if let file = arguments.upload {
                await Transfers.upload(file, to: arguments.url, with: client, run: run)
            } else if arguments.stream, arguments.transfer == .download {
                await Transfers.download(arguments.url, with: client, run: run)
            } else {
                await Transfers.stream(request, with: client, run: run)
            }
        }
    }
}
AsyncWorkers.block {
    try? await client.shutdown()
}
run.finish()
