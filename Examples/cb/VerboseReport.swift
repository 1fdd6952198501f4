import CurlBridge
import Foundation
import HTTPTypes

/// What `-v` prints to stderr: before the request, the `curl` command that sends the same thing
/// (secrets redacted); after it, curl's measurements of the transfer.
enum VerboseReport {
    /// `* curl '…' -H '…' …`.
    static func command(_ request: Request, _ configuration: Configuration) -> String {
        "* " + request.curlDescription(for: configuration) + "\n"
    }

    /// Three lines: where the answer came from, the phases' times, the byte counts.
    static func metrics(
        _ metrics: TransferMetrics, version: HTTPVersion, status: HTTPResponse.Status, attempts: Int
    ) -> String {
        let phases = [
            ("dns", metrics.nameLookup), ("connect", metrics.connect), ("tls", metrics.tlsHandshake),
            ("first byte", metrics.firstByte), ("total", metrics.total),
        ].map { name, duration in "\(name) \(milliseconds(duration)) ms" }
        return """
            * \(version) \(status.code) from \(metrics.remoteAddress):\(metrics.remotePort) (local port \(metrics.localPort)), \
            reused connection: \(metrics.reusedConnection ? "yes" : "no"), redirects: \(metrics.redirectCount)\
            \(attempts > 1 ? ", attempts: \(attempts)" : "")\
            \(metrics.cacheStatus == .bypassed ? "" : ", cache: \(metrics.cacheStatus)")
            * time: \(phases.joined(separator: ", "))
            * bytes: sent \(metrics.bytesSent), received \(metrics.bytesReceived) and \(metrics.headerBytes) of headers

            """
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.3f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
