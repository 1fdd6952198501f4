@testable import CurlBridge

/// One thing a transfer reported, for tests that follow a transfer step by step through one
/// `AsyncStream`: a test waiting for a step on the way also hears of the end, so a transfer that
/// ends early fails the test instead of leaving it waiting forever.
enum TransferStep: Equatable, Sendable {
    /// The response head arrived.
    case head
    /// The body consumer refused a chunk: the transfer is paused.
    case paused
    /// The transfer ended with this outcome.
    case completed(Result<Response, RequestError>)

    /// The outcome, if this is the end.
    var outcome: Result<Response, RequestError>? {
        if case .completed(let outcome) = self { return outcome }
        return nil
    }
}
