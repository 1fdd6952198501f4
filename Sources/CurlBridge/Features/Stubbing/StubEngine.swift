#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a stubbed transport runs instead of curl transfers: each request's stub answers in a task
/// of its own, and the answer comes back to the loop to be played to the transfer's receiver
/// (see ``StubExchange``). Confined to the loop, but for its ``inFlight`` counter: the answering tasks
/// reach it only through a ``LoopBound``.
final class StubEngine: TransferEngine {
    /// Answers a request; see ``Transport/init(configuration:stub:)``.
    typealias Handler = @Sendable (StubRequest) async -> StubResponse

    private unowned let loop: any RequestLoop
    private let handler: Handler
    /// In flight, by request id.
    private var exchanges: [UInt64: StubExchange] = [:]
    private var nextToken: UInt64 = 0
    let inFlight = TransferCounter()

    init(loop: any RequestLoop, handler: @escaping Handler) {
        self.loop = loop
        self.handler = handler
    }

    var isBusy: Bool { !exchanges.isEmpty }

    func begin(_ request: PreparedRequest, id: UInt64, receiver: any TransferReceiver) {
        nextToken += 1
        let exchange = StubExchange(token: nextToken, request: request, receiver: receiver)
        exchanges[id] = exchange
        inFlight.increment()
        let handler = handler
        let token = nextToken
        let engine = LoopBound(self, on: loop)
        exchange.answering = Task {
            let answer = await stubAnswer(to: request, handler: handler)
            engine.submit { $0.receive(answer, for: id, token: token) }
        }
    }

    /// Plays the answer to exchange `id`, unless it ended meanwhile.
    private func receive(_ answer: StubExchange.Answer, for id: UInt64, token: UInt64) {
        guard let exchange = exchanges[id], exchange.token == token, let end = exchange.receive(answer) else { return }
        finish(exchange, id: id, end)
    }

    func stop(_ id: UInt64) -> TransferProgress? {
        guard let exchange = remove(id) else { return nil }
        return exchange.finalProgress()
    }

    func pauseReceiving(_ id: UInt64) {
        exchanges[id]?.pause()
    }

    func resumeReceiving(_ id: UInt64) {
        guard let exchange = exchanges[id], let end = exchange.resume() else { return }
        finish(exchange, id: id, end)
    }

    func resumeSending(_ id: UInt64) {}

    func expire(at now: UInt64) -> UInt64? { nil }

    func failAll(_ error: RequestError) {
        for (id, exchange) in exchanges {
            finish(exchange, id: id, TransferEnd(
                result: .failure(error),
                finalProgress: exchange.finalProgress()))
        }
    }

    func rest(closed: Bool) {}

    /// Takes exchange `id` out of the table, stopping its stub.
    private func remove(_ id: UInt64) -> StubExchange? {
        guard let exchange = exchanges.removeValue(forKey: id) else { return nil }
        inFlight.decrement()
        exchange.answering?.cancel()
        return exchange
    }

    private func finish(_ exchange: StubExchange, id: UInt64, _ end: consuming TransferEnd) {
        _ = remove(id)
        exchange.receiver.transferEnded(end)
    }
}

/// The handler's answer to `request`, after its delay — or the timeout it runs into.
private func stubAnswer(to request: PreparedRequest, handler: StubEngine.Handler) async -> StubExchange.Answer {
    let received: StubRequest
    switch await StubRequest.received(request) {
    case .success(let stubRequest): received = stubRequest
    case .failure(let error): return StubExchange.Answer(reply: .failure(error), bytesSent: 0)
    }
    let bytesSent = Int64(received.body.count)
    var reply = await handler(received)
    if let (limit, code) = request.timeLimits.limit(reachedBySilenceOf: reply.delay) {
        reply = .failure(RequestError(code, "the stub answers after \(reply.delay), past the \(limit) limit"), delay: limit)
    }
    if reply.delay > .zero {
        try? await Task.sleep(for: reply.delay)
    }
    if let failure = reply.failure { return StubExchange.Answer(reply: .failure(failure), bytesSent: bytesSent) }
    return StubExchange.Answer(reply: .success(reply), bytesSent: bytesSent)
}
