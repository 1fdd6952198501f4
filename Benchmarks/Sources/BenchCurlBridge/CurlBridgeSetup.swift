import Glibc
import BenchSupport
import CurlBridge

/// What every CurlBridge style shares: the transport's configuration and what to do with a result.
enum CurlBridgeSetup {
    /// A transport trusting `--cacert`, with room for every request in flight on its own
    /// connection, curl's receive buffer from `--buffer`, and a body cap far above the 64 KiB
    /// workload's bodies; `cache`, when given, is the transport's HTTP cache.
    static func makeTransport(_ arguments: BenchArguments, cache: HTTPCache? = nil) -> Transport {
        var tls = TLSConfiguration()
        if let path = arguments.cacert {
            guard let pem = readTextFile(path), let authorities = try? CertificateBundle(pem: pem) else {
                standardError("cannot read PEM certificates from --cacert \(path)")
                exit(1)
            }
            tls = TLSConfiguration(trustRoots: .replacingSystem(with: authorities))
        }
        let limits = ConnectionLimits(perHost: arguments.concurrency, idleCached: arguments.concurrency)
        var configuration = Configuration(
            tls: tls, connectionLimits: limits, maximumBodySize: 128 << 20, receiveBufferSize: arguments.buffer)
        configuration.cache = cache
        return Transport(configuration: configuration)
    }

    /// Writes a 2xx response's body to the sink and records the request; anything else is an error.
    static func complete(_ result: Result<Response, RequestError>, since start: UInt64, in run: BenchRun) {
        switch result {
        case .success(let response) where (200..<300).contains(response.status.code):
            // The bytes where they lie: `write(contentsOf:)` is generic across the module boundary
            // and costs the harness ~850 instructions per request on `Data` (issue 37).
            response.body.withUnsafeBytes { _ = run.sink.write($0) }
            run.record(since: start, bytes: response.body.count)
        case .success(let response):
            run.record(since: start, error: "status \(response.status.code)")
        case .failure(let error):
            run.record(since: start, error: "\(error.code): \(error.message)")
        }
    }
}
