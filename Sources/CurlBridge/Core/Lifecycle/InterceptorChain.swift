/// Runs a request's adapters and retriers in order, and turns what they throw into
/// ``RequestError``s.
enum InterceptorChain {
    /// `request` as every adapter in turn makes it, or the first adapter's error.
    static func adapt(
        _ request: Request, with adapters: [any RequestAdapter], context: AttemptContext
    ) async -> Result<Request, RequestError> {
        var adapted = request
        for adapter in adapters {
            // The request ended (cancelled, timed out) while an earlier adapter ran: stop here.
            if Task.isCancelled { return .failure(RequestError(.cancelled, "the request ended while its adapters ran")) }
            do {
                adapted = try await adapter.adapt(adapted, for: context)
            } catch {
                return .failure(requestError(error, code: .adaptationFailed, verb: "an adapter failed", of: request))
            }
        }
        return .success(adapted)
    }

    /// The first decision other than ``RetryDecision/doNotRetry``, asking the retriers in order.
    static func decide(
        after outcome: AttemptOutcome, of request: Request, with retriers: [any RequestRetrier], context: AttemptContext
    ) async -> RetryDecision {
        for retrier in retriers {
            let decision = await retrier.retry(request, after: outcome, context: context)
            if case .doNotRetry = decision { continue }
            return decision
        }
        return .doNotRetry
    }

    /// `error` as the request's failure: a ``RequestError`` as it is, anything else wrapped in
    /// one of `code`.
    static func requestError(_ error: any Error, code: RequestError.Code, verb: String, of request: Request) -> RequestError {
        if let error = error as? RequestError { return error.attributed(to: request.method, url: request.url) }
        return RequestError(code, "\(verb): \(error)", method: request.method, url: request.url, underlying: error)
    }
}
