import BenchSupport
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One way of getting a response from URLSession, in both styles the benchmark measures.
protocol URLSessionFetcher: Sendable {
    /// Sends `request` and waits for the whole response on a semaphore: the classic sync pattern.
    func fetchBlocking(_ request: URLRequest)
    /// Sends `request` and suspends until the whole response is in.
    func fetch(_ request: URLRequest) async
}

/// A fetcher built on one call that starts a request and reports its end: both styles follow
/// from it (a semaphore for the blocking one, a continuation for the async one).
protocol StartedFetcher: URLSessionFetcher {
    /// Starts `request`; `completion` runs once the whole response is in (or failed).
    func start(_ request: URLRequest, completion: @escaping @Sendable () -> Void)
}

extension StartedFetcher {
    func fetchBlocking(_ request: URLRequest) {
        let done = DispatchSemaphore(value: 0)
        start(request) { done.signal() }
        done.wait()
    }

    func fetch(_ request: URLRequest) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            start(request) { continuation.resume() }
        }
    }
}

/// Bodies delivered whole: `dataTask(with:completionHandler:)` for the blocking style,
/// `data(for:)` for the async one.
struct CompletionFetcher: URLSessionFetcher {
    let session: URLSession
    let run: BenchRun

    init(configuration: URLSessionConfiguration, run: BenchRun) {
        session = URLSession(configuration: configuration)
        self.run = run
    }

    func fetchBlocking(_ request: URLRequest) {
        let done = DispatchSemaphore(value: 0)
        let start = monotonicNanoseconds()
        let run = self.run
        session.dataTask(with: request) { data, response, error in
            Self.complete(data: data, response: response, error: error, since: start, in: run)
            done.signal()
        }.resume()
        done.wait()
    }

    func fetch(_ request: URLRequest) async {
        let start = monotonicNanoseconds()
        do {
            let (data, response) = try await session.data(for: request)
            Self.complete(data: data, response: response, error: nil, since: start, in: run)
        } catch {
            Self.complete(data: nil, response: nil, error: error, since: start, in: run)
        }
    }

    /// Writes a 2xx body to the sink and records the request; anything else is an error.
    static func complete(data: Data?, response: URLResponse?, error: (any Error)?, since start: UInt64, in run: BenchRun) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if let error {
            run.record(since: start, error: "\(error)")
        } else if !(200..<300).contains(status) {
            run.record(since: start, error: "status \(status)")
        } else {
            let body = data ?? Data()
            run.sink.write(contentsOf: body)
            run.record(since: start, bytes: body.count)
        }
    }
}
