import CurlBridge
import Dispatch
import Foundation
import Synchronization
import Tracing

/// A client span for every request, with OpenTelemetry's HTTP client attributes, and the trace
/// context sent with every attempt. AsyncHTTPClient's `TracingConfiguration`, over CurlBridge's
/// interceptors and event monitors.
///
/// It is a `RequestInterceptor` and an `EventMonitor` at once, and must be installed as both —
/// ``CurlBridge/Configuration/enableTracing(tracer:sensitiveQueryNames:)`` does that in one call:
///
/// ```
/// adapt, attempt 1   start the span (child of ServiceContext.current), inject its context
/// adapt, attempt n   inject the same span's context again (a retry is not a new span)
/// didRedirect        event "redirect"        didScheduleRetry   event "retry"
/// attemptDidStart    event "attempt"         requestDidComplete outcome attributes, status, end
/// ```
///
/// - The span's parent is the task-local `ServiceContext.current` of the task that runs the first
///   adapter, which the transport creates on the thread that sends the request: an
///   `AsyncClient` caller's span is the parent, and so is that of a task calling
///   `CallbackClient`; a `BlockingClient` call (never made inside a task) and a callback call
///   from plain threads or queues start a root span, a trace of their own.
/// - Attributes: `http.request.method` (`_OTHER` and `http.request.method_original` for unknown
///   methods), `url.full` (user info and sensitive query values replaced by `REDACTED`),
///   `server.address`, `server.port`; on completion `http.response.status_code`,
///   `network.protocol.version`, `network.peer.address`, `network.peer.port`,
///   `http.request.body.size`, `http.response.body.size`, `http.request.resend_count` (retries
///   and redirects, when there were any) and `error.type` (the `RequestError.Code` description,
///   or the status code of a response of 400 or more). The status is error for failures and
///   responses of 400 or more. No error is recorded as an exception: a `RequestError`'s
///   description holds the URL unredacted.
/// - The propagation headers are whatever the instrument writes (`traceparent` and `tracestate`
///   for W3C trace context), set with ``HTTPFieldsInjector``, replacing earlier values.
/// - Spans are kept by request id until the request completes; a request that fails or is
///   cancelled before its first attempt's adapters reach this one has no span. Request ids are
///   unique in the process, so one instance may serve several transports.
public final class TracingInterceptor: RequestInterceptor, EventMonitor {
    /// The queue the monitor methods run on.
    public let queue: DispatchQueue
    private let tracer: (any Tracer)?
    private let baseURL: URL?
    private let sensitiveQueryNames: Set<String>
    private let state = Mutex(State())

    /// The open spans, and the requests that completed before any span started.
    private struct State {
        var spans: [UInt64: RequestSpan] = [:]
        var completedWithoutSpan = RecentIDs(capacity: 4096)
    }

    /// A request's span and what its completion reports about resends.
    private struct RequestSpan {
        let span: any Span
        var resends = 0
    }

    /// Creates an interceptor.
    ///
    /// - Parameters:
    ///   - tracer: The tracer that starts spans and injects their context; `nil` (the default)
    ///     uses `InstrumentationSystem.tracer` and `InstrumentationSystem.instrument`, looked up for
    ///     each request, so bootstrapping later still takes effect.
    ///   - baseURL: The configuration's base URL, to make relative request URLs absolute for
    ///     `url.full`; `nil` by default.
    ///   - sensitiveQueryNames: Query parameter names whose values `url.full` redacts, compared
    ///     without regard to case; `LoggingOptions.standardSensitiveQueryNames` and
    ///     OpenTelemetry's `AWSAccessKeyId`, `X-Goog-Signature` by default.
    ///   - queue: Where the monitor methods run; a serial queue of its own by default.
    public init(
        tracer: (any Tracer)? = nil,
        baseURL: URL? = nil,
        sensitiveQueryNames: Set<String> = TracingInterceptor.standardSensitiveQueryNames,
        queue: DispatchQueue = DispatchQueue(label: "CurlBridgeTelemetry.TracingInterceptor")
    ) {
        self.tracer = tracer
        self.baseURL = baseURL
        self.sensitiveQueryNames = Set(sensitiveQueryNames.map { $0.lowercased() })
        self.queue = queue
    }

    /// `LoggingOptions.standardSensitiveQueryNames` and the names OpenTelemetry lists for
    /// `url.full`: `AWSAccessKeyId`, `Signature`, `sig`, `X-Goog-Signature`.
    public static let standardSensitiveQueryNames =
        LoggingOptions.standardSensitiveQueryNames.union(["awsaccesskeyid", "x-goog-signature"])

    /// How many requests have a span that has not ended yet.
    public var openSpanCount: Int { state.withLock { $0.spans.count } }

    // MARK: RequestAdapter

    /// `false`: the tracer only adapts, so traced requests skip the retry machinery.
    public var decidesRetries: Bool { false }

    /// Starts the request's span before its first attempt, and writes the span's context into the
    /// request's headers before every attempt.
    ///
    /// A request cancelled while its adapters run completes at once, so this may run after
    /// ``requestDidComplete(_:id:result:duration:)``: then it starts no span. It knows from a
    /// cancelled task, or from the request's id among the last 4096 that completed without a span
    /// (both checked under the lock that completion takes to remove a span).
    public func adapt(_ request: Request, for context: AttemptContext) async throws -> Request {
        let parent = ServiceContext.current ?? .topLevel
        let span = state.withLock { state -> (any Span)? in
            if let existing = state.spans[context.requestID] { return existing.span }
            guard !state.completedWithoutSpan.remove(context.requestID), !Task.isCancelled else { return nil }
            let span = startSpan(for: request, parent: parent)
            state.spans[context.requestID] = RequestSpan(span: span)
            return span
        }
        guard let span else { return request }
        var adapted = request
        let instrument: any Instrument = tracer ?? InstrumentationSystem.instrument
        instrument.inject(span.context, into: &adapted.headerFields, using: HTTPFieldsInjector())
        return adapted
    }

    /// A new client span for `request`, child of `parent`, with the request's attributes.
    private func startSpan(for request: Request, parent: ServiceContext) -> any Span {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        let span = tracer.startSpan(HTTPClientSpanAttributes.spanName(for: request.method), context: parent, ofKind: .client)
        if span.isRecording {
            let target = RequestTarget(request, baseURL: baseURL, sensitiveQueryNames: sensitiveQueryNames)
            span.attributes.merge(HTTPClientSpanAttributes.request(request, target: target))
        }
        return span
    }

    // MARK: EventMonitor

    /// Adds an `attempt` event (`curlbridge.attempt`: its number) to the span.
    public func attemptDidStart(_ request: Request, id: UInt64, attempt: Int) {
        var attributes = SpanAttributes()
        attributes["curlbridge.attempt"] = attempt
        span(of: id)?.addEvent(SpanEvent(name: "attempt", attributes: attributes))
    }

    /// Adds a `redirect` event (`http.response.status_code`, and the redacted location as
    /// `url.full`) and counts it as a resend.
    public func didRedirect(_ hop: RedirectHop, id: UInt64) {
        guard let span = countResend(of: id) else { return }
        var attributes = SpanAttributes()
        attributes["http.response.status_code"] = hop.status.code
        if let location = RequestTarget(absoluteURL: hop.location, sensitiveQueryNames: sensitiveQueryNames) {
            attributes["url.full"] = location.redactedURL
        }
        span.addEvent(SpanEvent(name: "redirect", attributes: attributes))
    }

    /// Adds a `retry` event (`curlbridge.attempt`, `curlbridge.attempt.outcome`: its status code
    /// or error code, `curlbridge.retry.delay_ms`) and counts it as a resend.
    public func didScheduleRetry(after attempt: AttemptRecord, delay: Duration, id: UInt64) {
        guard let span = countResend(of: id) else { return }
        let outcome: String = switch attempt.outcome {
        case .response(let status): String(status)
        case .failure(let code): code.description
        }
        let milliseconds = delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
        var attributes = SpanAttributes()
        attributes["curlbridge.attempt"] = attempt.number
        attributes["curlbridge.attempt.outcome"] = outcome
        attributes["curlbridge.retry.delay_ms"] = Int(milliseconds)
        span.addEvent(SpanEvent(name: "retry", attributes: attributes))
    }

    /// Sets the outcome's attributes and status on the span, and ends it; a request that failed
    /// before any attempt has none.
    public func requestDidComplete(_ request: Request, id: UInt64, result: Result<Response, RequestError>, duration: Duration) {
        let entry = state.withLock { state in
            let entry = state.spans.removeValue(forKey: id)
            if entry == nil { state.completedWithoutSpan.insert(id) }
            return entry
        }
        guard let entry else { return }
        let span = entry.span
        if span.isRecording {
            var attributes = HTTPClientSpanAttributes.outcome(result)
            if entry.resends > 0 { attributes["http.request.resend_count"] = entry.resends }
            span.attributes.merge(attributes)
            if let status = HTTPClientSpanAttributes.status(result) { span.setStatus(status) }
        }
        span.end()
    }

    /// The open span of request `id`.
    private func span(of id: UInt64) -> (any Span)? {
        state.withLock { $0.spans[id]?.span }
    }

    /// Counts a resend of request `id` and returns its span.
    private func countResend(of id: UInt64) -> (any Span)? {
        state.withLock { state in
            state.spans[id]?.resends += 1
            return state.spans[id]?.span
        }
    }
}
