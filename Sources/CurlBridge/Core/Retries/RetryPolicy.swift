/// When a failed attempt is sent again, and how long to wait first. Set client-wide on
/// ``Configuration/retryPolicy`` and per request with ``Request/retries(_:)``; Alamofire's
/// `RetryPolicy`.
///
/// A retry is never sent when it cannot be safe or useful:
/// - the method is not idempotent (`POST`, `PATCH`, custom methods) and the request was not
///   marked ``Request/idempotent(key:)`` — the server may have acted on the first attempt;
/// - the body cannot be sent twice (a one-shot stream: ``Request/body(streaming:length:contentType:)``
///   or ``Request/body(length:contentType:pulling:)``);
/// - the total timeout would run out during the wait (it spans all attempts);
/// - the transport's ``RetryBudget`` is spent, so a failing backend is not hammered;
/// - the server's `Retry-After` asks for longer than ``maximumRetryAfter`` (CurlBridge never
///   retries sooner than the server asked).
///
/// Waits grow exponentially with full jitter (AWS's "full jitter": a random delay between zero
/// and `min(maximumDelay, baseDelay × 2^(retry − 1))`), unless the response says `Retry-After`.
///
/// ```swift
/// let transport = Transport(configuration: .init(retryPolicy: .standard))
/// // or only for one request, and a POST the server de-duplicates by key:
/// let request = Request.post("payments").json(payment).idempotent(key: paymentID).retries(.standard)
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts, the first included: `1` never retries.
    public var maximumAttempts: Int
    /// The scale of the exponential backoff: the first retry waits up to this long.
    public var baseDelay: Duration
    /// The longest backoff wait.
    public var maximumDelay: Duration
    /// The longest `Retry-After` honoured; a response asking for longer is not retried.
    public var maximumRetryAfter: Duration
    /// Status codes that are retried; 408, 429, 500, 502, 503 and 504 by default.
    public var retryableStatusCodes: Set<Int>
    /// Failures that are retried. By default those where the request cannot have been processed
    /// or the cause is likely to pass: ``RequestError/Code/connectFailed`` (refused, unreachable),
    /// ``RequestError/Code/connectionLost`` before any byte of a response arrived,
    /// ``RequestError/Code/connectTimedOut``, ``RequestError/Code/idleTimedOut`` and
    /// ``RequestError/Code/hostNotFound``.
    public var retryableErrors: Set<RequestError.Code>

    /// Creates a policy; every parameter has the default documented on its property.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(200),
        maximumDelay: Duration = .seconds(10),
        maximumRetryAfter: Duration = .seconds(60),
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultRetryableStatusCodes,
        retryableErrors: Set<RequestError.Code> = RetryPolicy.defaultRetryableErrors
    ) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrors = retryableErrors
    }

    /// No retries: every request is sent once. The configuration's default.
    public static let none = RetryPolicy(maximumAttempts: 1)
    /// Up to 3 attempts, backoff from 200 ms to 10 s, `Retry-After` up to 60 s.
    public static let standard = RetryPolicy()

    /// 408, 429, 500, 502, 503 and 504.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// Connection refused or lost before a response, connect and idle timeouts, host not found.
    public static let defaultRetryableErrors: Set<RequestError.Code> = [
        .connectFailed, .connectionLost, .connectTimedOut, .idleTimedOut, .hostNotFound,
    ]
}
