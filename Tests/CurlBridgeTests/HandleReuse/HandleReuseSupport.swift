@testable import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// The pattern of the handle-reuse tests: request A sets something, request B (sent after A has
/// completed, on the same transport) does not; B must begin on a reused easy handle — A's, since
/// the transport has only ever made the handles its sequential requests needed — and show nothing
/// of A.
///
/// Their transports turn handle reuse on (`reusesEasyHandles`): a transport leaves it off on a
/// libcurl before 8.1.0, where a reused handle is unsafe against a hostile server
/// (`CurlGlobal.clearsHeaderStateOnReuse`), but these tests talk to their own servers and check
/// the pool that newer libcurl uses.
extension Transport {
    /// Runs `body` (which sends request B) and expects at least one transfer it started to have
    /// begun on an easy handle reused from the transport's pool: without that, B would prove
    /// nothing about reuse.
    func reusingAHandle<T>(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
    ) async rethrows -> T {
        let before = reusedEasyHandleCount
        let value = try await body()
        #expect(
            reusedEasyHandleCount > before, "request B began on a fresh easy handle, not a reused one",
            sourceLocation: sourceLocation)
        return value
    }
}

extension Configuration {
    /// This configuration with easy-handle reuse on.
    func reusingEasyHandles() -> Configuration {
        var configuration = self
        configuration.reusesEasyHandles = true
        return configuration
    }
}

extension EchoReply {
    /// Expects the echoed request to be a plain `GET` with no body and no body framing.
    func expectPlainGET(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(method == "GET", sourceLocation: sourceLocation)
        #expect(bodyLength == 0, sourceLocation: sourceLocation)
        for name in ["Content-Length", "Transfer-Encoding", "Content-Type", "Expect"] {
            #expect(header(name).isEmpty, "B sent \(name): \(header(name))", sourceLocation: sourceLocation)
        }
    }
}

/// Counts the calls each event of one transfer receives, to show that none comes after the
/// transfer completed.
final class EventTally: Sendable {
    struct Counts: Equatable, Sendable {
        var heads = 0, chunks = 0, progress = 0, completions = 0
    }

    private let counts = Mutex(Counts())

    /// The calls so far.
    var now: Counts { counts.withLock { $0 } }

    /// Events that count every call and report the outcome to `completed`.
    func events(completed: @escaping @Sendable (Result<Response, RequestError>) -> Void) -> TransferEvents {
        var events = TransferEvents { result in
            self.counts.withLock { $0.completions += 1 }
            completed(result)
        }
        events.onResponseHead = { _ in
            self.counts.withLock { $0.heads += 1 }
            return nil
        }
        events.body = ClosureBodySink { _ in
            self.counts.withLock { $0.chunks += 1 }
            return .accept
        }
        events.onProgress = { _ in self.counts.withLock { $0.progress += 1 } }
        return events
    }
}

extension Transport {
    /// Starts `request` with `tally`'s events and waits for its outcome.
    func send(_ request: Request, counting tally: EventTally) async -> Result<Response, RequestError> {
        await withCheckedContinuation { continuation in
            start(request, events: tally.events { continuation.resume(returning: $0) })
        }
    }
}

extension ClientStyle {
    /// Sends `request` in this style and cancels it once its progress reaches `stalled`'s byte
    /// count (a body the server stops sending there); returns how it ended.
    func sendCancelled(_ request: Request, at stalled: Stalled, through transport: Transport) async -> RequestError? {
        switch self {
        case .blocking:
            let client = BlockingClient(transport: transport)
            let canceller = TransferCanceller()
            async let outcome = onWorkerThread {
                Result { () throws(RequestError) in try client.send(request, cancellation: canceller, progress: stalled.observe) }
            }
            await stalled.reached()
            canceller.cancel()
            return await outcome.failure
        case .async:
            let client = AsyncClient(transport: transport)
            let task = Task { () async throws(RequestError) -> Response in try await client.send(request, progress: stalled.observe) }
            await stalled.reached()
            task.cancel()
            return await task.result.failure as? RequestError
        case .callback:
            let (outcomes, delivery) = AsyncStream<Result<Response, RequestError>>.makeStream()
            let task = CallbackClient(transport: transport).send(request, progress: stalled.observe) { delivery.yield($0) }
            await stalled.reached()
            task.cancel()
            return await outcomes.first { _ in true }?.failure
        }
    }
}
