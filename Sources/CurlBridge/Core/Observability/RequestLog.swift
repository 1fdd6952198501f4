import Logging

/// What the request lifecycle logs about one request at `debug` level: each attempt's start and
/// end, redirects, retries and the completion, with short constant messages and the details in
/// metadata (see ``Key``), URLs redacted by the configuration's ``LoggingOptions``.
///
/// Made only when the request's logger is at `debug` level or below (`init` returns `nil`
/// otherwise), so that a request pays nothing for logging it does not do.
///
/// ```
/// debug attempt started    curlbridge.request_id=7 http.method=GET url=https://api.example.com/items?token=<redacted> curlbridge.attempt=1
/// debug attempt ended      curlbridge.request_id=7 curlbridge.attempt=1 http.status_code=503 curlbridge.duration_ms=12.480
/// debug retry scheduled    curlbridge.request_id=7 curlbridge.attempt=1 http.status_code=503 curlbridge.retry_delay_ms=250.000 …
/// debug request completed  curlbridge.request_id=7 http.method=GET url=… http.status_code=200 curlbridge.attempts=2 curlbridge.duration_ms=270.112
/// debug request completed  curlbridge.request_id=8 http.method=GET url=… http.status_code=200 curlbridge.cache=hit curlbridge.attempts=1 …
/// ```
struct RequestLog: Sendable {
    /// The metadata keys.
    enum Key {
        /// The request's id, the one ``EventMonitor`` methods receive; on every line, curl's too.
        static let requestID = "curlbridge.request_id"
        /// The method.
        static let method = "http.method"
        /// The URL, redacted.
        static let url = "url"
        /// The attempt's number, from 1.
        static let attempt = "curlbridge.attempt"
        /// The response's status code.
        static let statusCode = "http.status_code"
        /// The failure's ``RequestError/Code`` description.
        static let error = "curlbridge.error"
        /// How long the attempt or request took, in milliseconds.
        static let durationMilliseconds = "curlbridge.duration_ms"
        /// How many attempts the request took.
        static let attempts = "curlbridge.attempts"
        /// How long the wait before the next attempt is, in milliseconds.
        static let retryDelayMilliseconds = "curlbridge.retry_delay_ms"
        /// Where a redirect leads, redacted.
        static let location = "curlbridge.location"
        /// Where the response came from with respect to the cache (``CacheStatus``), when the
        /// transport has one: `hit`, `miss`, `revalidated`, `stale-served`.
        static let cacheStatus = "curlbridge.cache"
        /// The size of a piece of body curl sent or received (`trace` level).
        static let bytes = "curlbridge.bytes"
    }

    private let logger: Logger
    private let redactor: LogRedactor
    private let id: Logger.MetadataValue
    private let method: Logger.MetadataValue
    private let url: Logger.MetadataValue

    /// The log of request `id`, or `nil` when its logger's level is above `.debug`, so a request
    /// pays nothing for logging.
    ///
    /// - Parameters:
    ///   - defaults: The transport's logging defaults: its logger (the request's own
    ///     ``Request/logger`` wins) and what may be logged.
    ///   - request: The request as the caller made it (before adapters).
    ///   - id: The request's id.
    ///   - level: The level of the request's effective logger (``RequestLogDefaults/level(of:)``),
    ///     which the caller reads once for this and the first hop's trace.
    init?(_ defaults: RequestLogDefaults, request: Request, id: UInt64, level: Logger.Level) {
        guard level <= .debug else { return nil }
        logger = request.effectiveLogger(defaults.logger)
        redactor = LogRedactor(options: defaults.options)
        self.id = .stringConvertible(id)
        method = .string(request.method.rawValue)
        url = .string(redactor.url(request.url))
    }

    /// An attempt is about to be handed to curl.
    ///
    /// - Parameters:
    ///   - request: The request as adapted for this attempt.
    ///   - attempt: Its number, from 1.
    ///   - resolvedURL: The absolute URL it goes to, if known (else the request's URL is logged as written).
    func attemptStarted(_ request: Request, attempt: Int, url resolvedURL: String? = nil) {
        logger.debug("attempt started", metadata: [
            Key.requestID: id, Key.method: .string(request.method.rawValue),
            Key.url: .string(redactor.url(resolvedURL ?? request.url)), Key.attempt: .stringConvertible(attempt),
        ])
    }

    /// An attempt ended: with a response (its status) or a failure (its code).
    func attemptEnded(attempt: Int, outcome: Result<Response, RequestError>, duration: Duration) {
        var metadata: Logger.Metadata = [
            Key.requestID: id, Key.attempt: .stringConvertible(attempt), Key.durationMilliseconds: Self.milliseconds(duration),
        ]
        Self.describe(outcome, into: &metadata)
        logger.debug("attempt ended", metadata: metadata)
    }

    /// A redirect is being followed.
    func redirected(_ hop: RedirectHop) {
        logger.debug("redirect followed", metadata: [
            Key.requestID: id, Key.statusCode: .stringConvertible(hop.status.code),
            Key.url: .string(redactor.url(hop.url)), Key.location: .string(redactor.url(hop.location)),
        ])
    }

    /// An attempt ended and another starts after `delay`.
    func retryScheduled(after record: AttemptRecord, delay: Duration) {
        var metadata: Logger.Metadata = [
            Key.requestID: id, Key.attempt: .stringConvertible(record.number),
            Key.durationMilliseconds: Self.milliseconds(record.duration), Key.retryDelayMilliseconds: Self.milliseconds(delay),
        ]
        switch record.outcome {
        case .response(let status): metadata[Key.statusCode] = .stringConvertible(status)
        case .failure(let code): metadata[Key.error] = .string(code.description)
        }
        logger.debug("retry scheduled", metadata: metadata)
    }

    /// The request completed, after `attempts` attempts and `duration` in all.
    func completed(_ result: Result<Response, RequestError>, attempts: Int, duration: Duration) {
        var metadata: Logger.Metadata = [
            Key.requestID: id, Key.method: method, Key.url: url, Key.attempts: .stringConvertible(attempts),
            Key.durationMilliseconds: Self.milliseconds(duration),
        ]
        Self.describe(result, into: &metadata)
        logger.debug("request completed", metadata: metadata)
    }

    /// The status of a response, or the code of a failure (and the status of its response, if any).
    private static func describe(_ outcome: Result<Response, RequestError>, into metadata: inout Logger.Metadata) {
        switch outcome {
        case .success(let response):
            metadata[Key.statusCode] = .stringConvertible(response.status.code)
            if response.cacheStatus != .bypassed { metadata[Key.cacheStatus] = .stringConvertible(response.cacheStatus) }
        case .failure(let error):
            metadata[Key.error] = .string(error.code.description)
            if let response = error.response { metadata[Key.statusCode] = .stringConvertible(response.status.code) }
        }
    }

    /// `duration` in milliseconds with three decimals (`"12.480"`).
    static func milliseconds(_ duration: Duration) -> Logger.MetadataValue {
        let (seconds, attoseconds) = duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let sign = microseconds < 0 ? "-" : ""
        let magnitude = microseconds.magnitude
        let fraction = String(magnitude % 1000)
        return .string("\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)")
    }
}

extension RequestLog: RequestObserver {
    /// Logs the events that have a line; the request's own id is already in its metadata.
    func observe(_ event: RequestEvent, id _: UInt64) {
        switch event {
        case .attemptStarted(let request, let attempt, let url): attemptStarted(request, attempt: attempt, url: url)
        case .attemptEnded(let attempt, let outcome, let duration): attemptEnded(attempt: attempt, outcome: outcome, duration: duration)
        case .redirected(let hop): redirected(hop)
        case .retryScheduled(let record, let delay): retryScheduled(after: record, delay: delay)
        case .completed(_, let result, let attempts, let duration): completed(result, attempts: attempts, duration: duration)
        case .started, .receivedHead: break
        }
    }
}
