import Logging

/// What a transfer needs to log its engine's verbose output (curl's): on a ``PreparedRequest`` only when the
/// request's effective logger is at `trace` level (see ``Request/transferTrace(url:headerLines:challenge:defaults:level:)``).
struct TransferTrace: Sendable {
    /// The request's effective logger.
    let logger: Logger
    /// The request's redactor, with its known secrets.
    let redactor: LogRedactor
}
