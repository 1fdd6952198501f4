import CurlBridge
import CurlBridgeTestServer
import Dispatch
import Foundation

/// One transport and a client of each style over it.
struct StormClients: Sendable {
    let transport: Transport
    let blocking: BlockingClient
    let async: AsyncClient
    let callback: CallbackClient

    init(_ transport: Transport) {
        self.transport = transport
        blocking = BlockingClient(transport: transport)
        async = AsyncClient(transport: transport)
        callback = CallbackClient(transport: transport)
    }

    /// Shuts the transport down and waits until it has.
    func shutdown() {
        let closed = DispatchSemaphore(value: 0)
        transport.shutdown { closed.signal() }
        closed.wait()
    }

    /// Requests in each style over plain and TLS through a transport of `configuration`, then
    /// shut down, so that what is created once per process (curl and OpenSSL state, dispatch
    /// threads) exists before a baseline is taken.
    static func warmUp(server: TestServer, configuration: Configuration) {
        let clients = StormClients(Transport(configuration: configuration))
        let group = DispatchGroup()
        for url in [server.httpURL, server.httpsURL] {
            let request = Request.get(url.absoluteString + "bytes/1000")
            group.enter()
            clients.callback.send(request) { _ in group.leave() }
            group.enter()
            Task {
                _ = try? await clients.async.send(request)
                group.leave()
            }
            group.enter()
            Thread.detachNewThread {
                _ = try? clients.blocking.send(request)
                group.leave()
            }
        }
        group.wait()
        clients.shutdown()
    }
}

/// Starts a planned request in its style and wires it to the ledger: its cancel (or, in a
/// `cancelAll` batch, its stream consumer's wake-up) is registered, its caller's outcome recorded.
struct StormLauncher: Sendable {
    let ledger: StormLedger
    let targets: StormTargets
    let workers: WorkerPool
    /// A small buffer, so a consumer that stops reading pauses the transfer within 64 KiB.
    static let limits = BufferLimits(highWatermark: 64 << 10, lowWatermark: 16 << 10)
    /// How long a stream consumer waits to be told to read its end: past the storm's own limit.
    static let consumerPatience = DispatchTimeInterval.seconds(180)

    /// Starts `plan`'s request through `clients`; `done` runs once its caller has the outcome.
    func launch(_ plan: StormPlan, on clients: StormClients, done: @escaping @Sendable () -> Void) {
        let (ledger, index, request) = (self.ledger, plan.index, targets.request(for: plan))
        ledger.add(plan)
        let finish: @Sendable (String) -> Void = { outcome in
            ledger.styleCompleted(index, outcome)
            done()
        }
        let isBatched = plan.path == .cancelAll
        switch (plan.style, plan.streams) {
        case (.callback, false):
            let task = clients.callback.send(request) { finish(StormLedger.outcome($0)) }
            if !isBatched { ledger.register(index) { task.cancel() } }
        case (.callback, true):
            let task = clients.callback.stream(
                request, bufferLimits: Self.limits, onResponse: { _ in }, onData: { _ in },
                onComplete: { finish(StormLedger.outcome($0)) })
            task.pause()  // the consumer stops reading: the buffer fills and curl pauses
            ledger.register(index) { isBatched ? task.resume() : task.cancel() }
        case (.async, false):
            let task = Task {
                do throws(RequestError) {
                    _ = try await clients.async.send(request)
                    finish("response")
                } catch {
                    finish(error.code.description)
                }
            }
            if !isBatched { ledger.register(index) { task.cancel() } }
        case (.async, true):
            let wake = Wake()
            let task = Task {
                do throws(RequestError) {
                    let streamed = try await clients.async.stream(request, bufferLimits: Self.limits)
                    await wake.wait()  // not reading meanwhile: paused by backpressure
                    for try await _ in streamed.body {}
                    finish("response")
                } catch {
                    finish(error.code.description)
                }
            }
            ledger.register(index) { isBatched ? wake.fire() : task.cancel() }
        case (.blocking, false):
            workers.run {
                let canceller = TransferCanceller()
                if !isBatched { ledger.register(index) { canceller.cancel() } }
                do throws(RequestError) {
                    _ = try clients.blocking.send(request, cancellation: canceller)
                    finish("response")
                } catch {
                    finish(error.code.description)
                }
            }
        case (.blocking, true):
            workers.run {
                do throws(RequestError) {
                    let reader = try clients.blocking.stream(request, bufferLimits: Self.limits)
                    let wake = DispatchSemaphore(value: 0)
                    ledger.register(index) {
                        if !isBatched { reader.close() }
                        wake.signal()
                    }
                    _ = wake.wait(timeout: .now() + Self.consumerPatience)  // not reading meanwhile
                    while try reader.read() != nil {}
                    finish("response")
                } catch {
                    finish(error.code.description)
                }
            }
        }
    }
}
