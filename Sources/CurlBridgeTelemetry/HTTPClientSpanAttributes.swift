import CurlBridge
import HTTPTypes
import Tracing

/// The OpenTelemetry HTTP client semantic-convention attributes, as ``TracingInterceptor`` sets
/// them: what a request says before it is sent, and what its outcome adds.
enum HTTPClientSpanAttributes {
    /// The span's name: the method, or `HTTP` for a method OpenTelemetry does not know by name.
    static func spanName(for method: HTTPRequest.Method) -> String {
        let label = method.boundedLabel
        return label == "_OTHER" ? "HTTP" : label
    }

    /// `http.request.method` (and `http.request.method_original` for an unknown method),
    /// `url.full`, `server.address` and `server.port`.
    static func request(_ request: Request, target: RequestTarget?) -> SpanAttributes {
        var attributes = SpanAttributes()
        let label = request.method.boundedLabel
        attributes["http.request.method"] = label
        if label == "_OTHER" { attributes["http.request.method_original"] = request.method.rawValue }
        if let target {
            attributes["url.full"] = target.redactedURL
            attributes["server.address"] = target.host
            attributes["server.port"] = target.port
        }
        return attributes
    }

    /// What the outcome adds: `http.response.status_code`, `network.protocol.version`,
    /// `network.peer.address`/`port`, `http.request.body.size`, `http.response.body.size`, and
    /// `error.type` (the `RequestError.Code` description of a failure, or the status code of a
    /// response of 400 or more).
    static func outcome(_ result: Result<Response, RequestError>) -> SpanAttributes {
        var attributes = SpanAttributes()
        let response: Response?
        switch result {
        case .success(let success):
            response = success
            if success.status.code >= 400 { attributes["error.type"] = String(success.status.code) }
        case .failure(let error):
            response = error.response
            attributes["error.type"] = error.code.description
        }
        if let response {
            attributes["http.response.status_code"] = response.status.code
            attributes["network.protocol.version"] = protocolVersion(response.httpVersion)
            if !response.metrics.remoteAddress.isEmpty {
                attributes["network.peer.address"] = response.metrics.remoteAddress
                attributes["network.peer.port"] = response.metrics.remotePort
            }
            attributes["http.request.body.size"] = Int(response.metrics.bytesSent)
            attributes["http.response.body.size"] = Int(response.metrics.bytesReceived)
        }
        return attributes
    }

    /// The span's status: error for a failure and for a response of 400 or more (a client span's
    /// rule in OpenTelemetry), unset otherwise.
    static func status(_ result: Result<Response, RequestError>) -> SpanStatus? {
        switch result {
        case .success(let response):
            response.status.code >= 400 ? SpanStatus(code: .error) : nil
        case .failure(let error):
            SpanStatus(code: .error, message: error.code.description)
        }
    }

    /// `network.protocol.version`: `"1.1"`, `"2"`, `"3"`.
    static func protocolVersion(_ version: HTTPVersion) -> String {
        version.minor == 0 && version.major >= 2 ? String(version.major) : "\(version.major).\(version.minor)"
    }
}
