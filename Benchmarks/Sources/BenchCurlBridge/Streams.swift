import BenchSupport
import CurlBridge
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Streamed bodies (`--stream`, `--transfer stream`): each chunk goes to `--output` as it
/// arrives, through the style's own streaming API, never collected — `AsyncClient.stream`'s
/// `AsyncSequence`, `BlockingClient.stream`'s `BlockingStreamingResponse`, `CallbackClient.stream`'s
/// `onData`. With `--consume-rate` the consumer sleeps between chunks and backpressure must
/// hold the transfer back.
enum Streams {
    /// One request through `AsyncClient.stream`, iterating the body.
    static func fetch(_ request: Request, with client: AsyncClient, run: BenchRun) async {
        let start = monotonicNanoseconds()
        let consumer = ChunkConsumer(run: run)
        do throws(RequestError) {
            let response = try await client.stream(request)
            for try await chunk in response.body {
                let wait = consumer.consume(chunk)
                if wait > 0 { try? await Task.sleep(nanoseconds: wait) }
            }
            finish(status: response.status.code, consumer: consumer, since: start, in: run)
        } catch {
            run.record(since: start, bytes: consumer.bytes, error: "\(error.code): \(error.message)")
        }
    }

    /// One request through `BlockingClient.stream`, reading until the end.
    static func fetch(_ request: Request, with client: BlockingClient, run: BenchRun) {
        let start = monotonicNanoseconds()
        let consumer = ChunkConsumer(run: run)
        do throws(RequestError) {
            let reader = try client.stream(request)
            while let chunk = try reader.read() {
                sleepNanoseconds(consumer.consume(chunk))
            }
            finish(status: reader.head.status.code, consumer: consumer, since: start, in: run)
        } catch {
            run.record(since: start, bytes: consumer.bytes, error: "\(error.code): \(error.message)")
        }
    }

    /// One request through `CallbackClient.stream`, waiting for `onComplete`. The handlers run on
    /// a serial queue of their own; a paced consumer sleeps on it.
    static func fetch(_ request: Request, with client: CallbackClient, run: BenchRun) {
        let start = monotonicNanoseconds()
        let consumer = ChunkConsumer(run: run)
        let done = DispatchSemaphore(value: 0)
        client.stream(
            request, queue: DispatchQueue(label: "bench.stream"),
            onResponse: { _ in },
            onData: { chunk in sleepNanoseconds(consumer.consume(chunk)) },
            onComplete: { result in
                switch result {
                case .success(let response):
                    finish(status: response.status.code, consumer: consumer, since: start, in: run)
                case .failure(let error):
                    run.record(since: start, bytes: consumer.bytes, error: "\(error.code): \(error.message)")
                }
                done.signal()
            })
        done.wait()
    }

    private static func finish(status: Int, consumer: ChunkConsumer, since start: UInt64, in run: BenchRun) {
        let error = (200..<300).contains(status) ? nil : "status \(status)"
        run.record(since: start, bytes: consumer.bytes, error: error)
    }
}
