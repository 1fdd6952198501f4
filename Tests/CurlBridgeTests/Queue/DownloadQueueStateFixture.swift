@testable import CurlBridge
import Foundation

extension DownloadQueueState {
    /// A machine with the queue's default retry policy allowing `failures` resumed failures in a
    /// row, whose jitter is always 0.5 and whose wall clock stands at the epoch: its backoff
    /// delays are exact.
    static func fixture(concurrency: Int, failures: Int) -> DownloadQueueState {
        DownloadQueueState(concurrency: concurrency, retries: .queue(failures: failures), readings: { (Date(timeIntervalSince1970: 0), 0.5) })
    }
}

extension RetryPolicy {
    /// The queue's default policy, allowing `failures` resumed failures in a row.
    static func queue(failures: Int) -> RetryPolicy {
        var policy = DownloadQueue.Options.defaultRetryPolicy
        policy.maximumAttempts = failures + 1
        return policy
    }
}
