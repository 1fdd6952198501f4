import CoreMetrics
import CurlBridge
import Dispatch

/// Counts requests, errors, retries and bytes, and times requests, in swift-metrics: an
/// `EventMonitor` for `Configuration.eventMonitors` (see
/// ``CurlBridge/Configuration/enableMetrics(prefix:dimensions:factory:)``). What Alamofire users
/// build on its `EventMonitor` by hand, and what `URLSessionTaskMetrics` feed on Apple platforms.
///
/// The metrics, with `curlbridge` as the default ``Names/prefix`` (names and label keys follow
/// Prometheus' conventions; any ``init(prefix:dimensions:factory:queue:)`` `dimensions` are added to
/// every one):
///
/// | metric | kind | labels | what |
/// |---|---|---|---|
/// | `curlbridge_requests_total` | counter | `method`, `status` | completed requests; `status` is the code (`"200"`) or `"error"` |
/// | `curlbridge_request_errors_total` | counter | `code` | failed requests, by `RequestError.Code` description (`"connectFailed"`) |
/// | `curlbridge_request_duration_seconds` | timer | `method`, `status` | from handing the request to the transport to its completion, all attempts and waits included |
/// | `curlbridge_retries_total` | counter | `reason` | retries scheduled; `reason` is the retried attempt's status code or error code |
/// | `curlbridge_request_body_bytes_total` | counter | `method` | request body bytes sent by the final transfer |
/// | `curlbridge_response_body_bytes_total` | counter | `method` | response body bytes received by the final transfer, as on the wire |
///
/// `method` is the method's name, or `_OTHER` for one outside RFC 9110 and RFC 5789, so a label
/// set cannot grow without bound. Durations are the transport's own measurements (the
/// `duration` of `EventMonitor.requestDidComplete(_:id:result:duration:)`); bytes come from
/// `Response.metrics` — of the response, or of the response a failure carries — and so count
/// the final transfer only, not earlier attempts or redirect hops.
public struct MetricsMonitor: EventMonitor {
    /// The metric names, derived from a prefix.
    public struct Names: Sendable, Hashable {
        /// What every name starts with, followed by `_`; `curlbridge` by default.
        public var prefix: String
        /// `<prefix>_requests_total`.
        public var requests: String { prefix + "_requests_total" }
        /// `<prefix>_request_errors_total`.
        public var errors: String { prefix + "_request_errors_total" }
        /// `<prefix>_request_duration_seconds`.
        public var duration: String { prefix + "_request_duration_seconds" }
        /// `<prefix>_retries_total`.
        public var retries: String { prefix + "_retries_total" }
        /// `<prefix>_request_body_bytes_total`.
        public var bytesSent: String { prefix + "_request_body_bytes_total" }
        /// `<prefix>_response_body_bytes_total`.
        public var bytesReceived: String { prefix + "_response_body_bytes_total" }

        /// Names starting with `prefix`.
        public init(prefix: String = "curlbridge") { self.prefix = prefix }
    }

    /// The queue the monitor's methods run on.
    public let queue: DispatchQueue
    /// The names of the metrics it updates.
    public let names: Names
    /// Labels added to every metric.
    public let dimensions: [(String, String)]
    private let factory: (any MetricsFactory)?

    /// Creates a monitor.
    ///
    /// - Parameters:
    ///   - prefix: What every metric name starts with; `curlbridge` by default.
    ///   - dimensions: Labels added to every metric (`[("client", "billing")]`); none by default.
    ///   - factory: Where metrics are made; `nil` (the default) uses the factory bootstrapped in
    ///     `MetricsSystem`, looked up when each metric is made.
    ///   - queue: Where the methods run; a serial queue of its own by default.
    public init(
        prefix: String = "curlbridge",
        dimensions: [(String, String)] = [],
        factory: (any MetricsFactory)? = nil,
        queue: DispatchQueue = DispatchQueue(label: "CurlBridgeTelemetry.MetricsMonitor")
    ) {
        self.names = Names(prefix: prefix)
        self.dimensions = dimensions
        self.factory = factory
        self.queue = queue
    }

    /// Counts a retry, labelled with the retried attempt's outcome.
    public func didScheduleRetry(after attempt: AttemptRecord, delay: Duration, id: UInt64) {
        let reason: String = switch attempt.outcome {
        case .response(let status): String(status)
        case .failure(let code): code.description
        }
        counter(names.retries, [("reason", reason)]).increment()
    }

    /// Counts and times the request, counts its error and its bytes.
    public func requestDidComplete(_ request: Request, id: UInt64, result: Result<Response, RequestError>, duration: Duration) {
        let method = request.method.boundedLabel
        let response: Response?
        let status: String
        switch result {
        case .success(let success):
            response = success
            status = String(success.status.code)
        case .failure(let error):
            response = error.response
            status = "error"
            counter(names.errors, [("code", error.code.description)]).increment()
        }
        let labels = [("method", method), ("status", status)]
        counter(names.requests, labels).increment()
        timer(names.duration, labels).recordNanoseconds(Self.nanoseconds(duration))
        if let metrics = response?.metrics {
            counter(names.bytesSent, [("method", method)]).increment(by: max(metrics.bytesSent, 0))
            counter(names.bytesReceived, [("method", method)]).increment(by: max(metrics.bytesReceived, 0))
        }
    }

    /// The counter `label` with `labels` and the monitor's dimensions.
    private func counter(_ label: String, _ labels: [(String, String)]) -> Counter {
        if let factory { return Counter(label: label, dimensions: labels + dimensions, factory: factory) }
        return Counter(label: label, dimensions: labels + dimensions)
    }

    /// The timer `label` with `labels` and the monitor's dimensions.
    private func timer(_ label: String, _ labels: [(String, String)]) -> CoreMetrics.Timer {
        if let factory { return CoreMetrics.Timer(label: label, dimensions: labels + dimensions, factory: factory) }
        return CoreMetrics.Timer(label: label, dimensions: labels + dimensions)
    }

    /// `duration` in whole nanoseconds, saturating.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
