import Foundation
import Synchronization

/// A stubbed transport's requests in flight: what its loop runs instead of curl transfers.
/// Everything but ``count`` is confined to the loop.
final class StubExchanges: @unchecked Sendable {
    /// Answers a request; see ``Transport/init(configuration:stub:)``.
    typealias Handler = @Sendable (StubRequest) async -> StubResponse

    private let handler: Handler
    /// In flight, by transfer number.
    private var exchanges: [UInt64: StubExchange] = [:]
    private let inFlight = Atomic<Int>(0)

    init(handler: @escaping Handler) {
        self.handler = handler
    }

    /// How many are in flight, readable from any thread.
    var count: Int { inFlight.load(ordering: .relaxed) }

    /// Whether none is in flight.
    var isEmpty: Bool { exchanges.isEmpty }

    /// Starts answering `request`; `submit` hands the answer back to the loop.
    func begin(
        id: UInt64, request: PreparedRequest, events: TransferEvents,
        submit: @escaping @Sendable (StubExchange.Answer) -> Void
    ) {
        let exchange = StubExchange(id: id, request: request, events: events)
        exchanges[id] = exchange
        inFlight.add(1, ordering: .relaxed)
        let handler = handler
        exchange.answering = Task {
            submit(await Self.answer(request, handler: handler))
        }
    }

    /// Delivers the answer to exchange `id`, unless it already ended.
    func receive(_ answer: StubExchange.Answer, for id: UInt64) {
        guard let exchange = exchanges[id], let outcome = exchange.receive(answer) else { return }
        finish(exchange, outcome)
    }

    /// Ends exchange `id` with `error`; `false` when no such exchange is in flight.
    func fail(_ id: UInt64, with error: (PreparedRequest) -> RequestError) -> Bool {
        guard let exchange = exchanges[id] else { return false }
        finish(exchange, .failure(error(exchange.request)))
        return true
    }

    /// Ends every exchange with the error `error` makes for its request.
    func failAll(with error: (PreparedRequest) -> RequestError) {
        for exchange in exchanges.values { finish(exchange, .failure(error(exchange.request))) }
    }

    /// Holds exchange `id`'s body until ``resumeReceiving(_:)``.
    func pauseReceiving(_ id: UInt64) {
        exchanges[id]?.pause()
    }

    /// Offers exchange `id`'s body again.
    func resumeReceiving(_ id: UInt64) {
        guard let exchange = exchanges[id], let outcome = exchange.resume() else { return }
        finish(exchange, outcome)
    }

    private func finish(_ exchange: StubExchange, _ outcome: Result<Response, RequestError>) {
        exchanges[exchange.id] = nil
        inFlight.subtract(1, ordering: .relaxed)
        exchange.answering?.cancel()
        exchange.reportFinalProgress()
        exchange.events.onComplete(outcome)
    }

    /// The handler's answer to `request`, after its delay — or the timeout it runs into.
    private static func answer(_ request: PreparedRequest, handler: Handler) async -> StubExchange.Answer {
        let received: StubRequest
        switch await StubRequest.received(request) {
        case .success(let stubRequest): received = stubRequest
        case .failure(let error): return StubExchange.Answer(reply: .failure(error), bytesSent: 0)
        }
        let bytesSent = Int64(received.body.count)
        var reply = await handler(received)
        if let (limit, code) = timeout(of: request), reply.delay > limit {
            reply = .failure(RequestError(code, "the stub answers after \(reply.delay), past the \(limit) limit"), delay: limit)
        }
        if reply.delay > .zero {
            try? await Task.sleep(for: reply.delay)
        }
        if let failure = reply.failure { return StubExchange.Answer(reply: .failure(failure), bytesSent: bytesSent) }
        return StubExchange.Answer(reply: .success(reply), bytesSent: bytesSent)
    }

    /// The request's nearest time limit and the error it raises.
    private static func timeout(of request: PreparedRequest) -> (Duration, RequestError.Code)? {
        let total = request.totalTimeoutMilliseconds.map { (Duration.milliseconds($0), RequestError.Code.totalTimedOut) }
        let idle = request.idleTimeoutNanoseconds.map { (Duration.nanoseconds(Int64($0)), RequestError.Code.idleTimedOut) }
        switch (total, idle) {
        case let (total?, idle?): return idle.0 < total.0 ? idle : total
        case let (total?, nil): return total
        case let (nil, idle?): return idle
        case (nil, nil): return nil
        }
    }
}
