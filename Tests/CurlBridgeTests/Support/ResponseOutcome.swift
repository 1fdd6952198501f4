import CurlBridge
import Foundation
import HTTPTypes

/// An attempt that ended with a response of `status` — with `Retry-After: retryAfter` when given,
/// an empty body and zero metrics: what the retry decisions are tested on.
func responseOutcome(_ status: Int, retryAfter: String? = nil) -> AttemptOutcome {
    var fields = HTTPFields()
    if let retryAfter { fields[.retryAfter] = retryAfter }
    return .response(Response(
        status: .init(code: status), headerFields: fields, body: Data(), url: "http://h/", httpVersion: .http1_1,
        metrics: TransferMetrics(
            nameLookup: .zero, connect: .zero, tlsHandshake: .zero, preTransfer: .zero, firstByte: .zero, total: .zero,
            bytesSent: 0, bytesReceived: 0, headerBytes: 0, reusedConnection: false, localPort: 0, remoteAddress: "", remotePort: 0)))
}
