import CurlBridge

/// The result of one cache test, classified as the suite's test-engine/lib/results.mjs does.
enum CacheTestVerdict: Sendable, Equatable {
    /// Every check held (for a `check` test: "yes").
    case passed
    /// A check failed (for a `check` test: "no"), or a request failed.
    case failed(String)
    /// A check marked as setup failed: the test could not be brought to the point it examines.
    /// A retried request (the origin saw a request number twice) counts here too, as "retry".
    case setupFailed(String)
    /// A test this one depends on did not pass, so this one's result means nothing.
    case dependencyFailed(on: String)
    /// Not run: the test is not about a cache like this one, or needs what the harness lacks.
    case notApplicable(String)
}

/// A check that did not hold: it ends the test (test-engine/lib/utils.mjs `assert`).
struct CacheTestCheckFailure: Error {
    /// Whether the check was part of the setup (`setup`, `setup_tests`).
    let isSetup: Bool
    let message: String

    /// The verdict it makes, its message followed by how the cache produced each response so
    /// far, e.g. `[cache: miss, hit]` (`none` for the stand-in of a dropped connection), for the reader.
    func verdict(cacheStatuses: [CacheStatus?]) -> CacheTestVerdict {
        let note = " [cache: " + cacheStatuses.map { $0?.description ?? "none" }.joined(separator: ", ") + "]"
        return isSetup ? .setupFailed(message + note) : .failed(message + note)
    }
}
