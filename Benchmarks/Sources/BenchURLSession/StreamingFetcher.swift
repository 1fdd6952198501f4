import BenchSupport
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Bodies streamed: a data delegate writes each piece to the sink as it arrives, so a 1 GiB body
/// is never held in memory. With `--consume-rate` the delegate sleeps between pieces, as a slow
/// consumer on the delegate queue (URLSession has no backpressure: what the delegate has not
/// taken yet waits in memory).
final class StreamingFetcher: NSObject, StartedFetcher, URLSessionDataDelegate {
    private struct Pending {
        var start: UInt64
        var bytes = 0
        var status = 0
        var completion: @Sendable () -> Void
    }

    private let run: BenchRun
    private let pending = Mutex<[Int: Pending]>([:])
    /// The pace of `--consume-rate` (runs with it send one request at a time).
    private let pace: Mutex<ConsumerPace?>
    /// Created after `super.init()`, as the session needs the delegate; never changed after.
    nonisolated(unsafe) private var session: URLSession!

    init(configuration: URLSessionConfiguration, run: BenchRun) {
        self.run = run
        pace = Mutex(run.arguments.consumeRate.map { ConsumerPace(bytesPerSecond: $0) })
        super.init()
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    func start(_ request: URLRequest, completion: @escaping @Sendable () -> Void) {
        let task = session.dataTask(with: request)
        let entry = Pending(start: monotonicNanoseconds(), completion: completion)
        pending.withLock { $0[task.taskIdentifier] = entry }
        task.resume()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        pending.withLock { $0[dataTask.taskIdentifier]?.status = status }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        run.sink.write(contentsOf: data)
        pending.withLock { $0[dataTask.taskIdentifier]?.bytes += data.count }
        sleepNanoseconds(pace.withLock { $0?.delay(afterConsuming: data.count) ?? 0 })
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            run.record(since: entry.start, bytes: entry.bytes, error: "\(error)")
        } else if !(200..<300).contains(entry.status) {
            run.record(since: entry.start, bytes: entry.bytes, error: "status \(entry.status)")
        } else {
            run.record(since: entry.start, bytes: entry.bytes)
        }
        entry.completion()
    }
}
