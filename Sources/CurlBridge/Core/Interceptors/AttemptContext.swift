/// Where a request is in its lifecycle, for adapters and retriers.
public struct AttemptContext: Sendable {
    /// The request's number, unique in the process: the same for all its attempts and redirects,
    /// the `id` event monitors receive, and the `curlbridge.request_id` of its log lines.
    public let requestID: UInt64
    /// The attempt about to start (adapters) or just ended (retriers), from 1.
    public let attempt: Int
    /// The attempts that ended before this one.
    public let previousAttempts: [AttemptRecord]

    /// Creates a context.
    public init(requestID: UInt64, attempt: Int, previousAttempts: [AttemptRecord]) {
        self.requestID = requestID
        self.attempt = attempt
        self.previousAttempts = previousAttempts
    }
}

/// How an attempt ended, as a ``RequestRetrier`` sees it.
public enum AttemptOutcome: Sendable {
    /// A response arrived (any status; with its body when the call collects bodies, or the first
    /// 64 KiB of it when the call streams or downloads).
    case response(Response)
    /// The attempt failed.
    case failure(RequestError)

    /// The response's status code, if a response arrived.
    public var statusCode: Int? {
        if case .response(let response) = self { return response.status.code }
        return nil
    }
}
