#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DownloadQueue {
    /// How a queue runs.
    public struct Options: Sendable, Hashable {
        /// How many downloads transfer at once; 4 by default.
        public var maximumConcurrentDownloads: Int
        /// Bytes between two flushes of a download's partial file and journal records of them:
        /// at most what a crash makes the queue fetch again; 4 MiB by default.
        public var checkpointInterval: Int64
        /// Whether a failed transfer starts again from the bytes on disk, and after how long:
        /// ``defaultRetryPolicy`` by default. Its ``RetryPolicy/maximumAttempts`` counts the tries
        /// in a row (a ``resume(_:)`` starts the count again); a try that fails with one of its
        /// ``RetryPolicy/retryableErrors`` or ``RetryPolicy/retryableStatusCodes`` waits out the
        /// backoff (or the server's `Retry-After`, up to ``RetryPolicy/maximumRetryAfter``) in
        /// the ``QueuedDownload/State/waiting`` state, holding no slot, then resumes. A pause, a
        /// cancel or closing the queue ends the wait at once. The transport's ``RetryBudget`` is not
        /// spent by the queue, and a lost connection is retried even after bytes arrived, since
        /// the download continues from them.
        public var retryPolicy: RetryPolicy
        /// Failures in a row a download is resumed after before it fails for good: the
        /// ``retryPolicy``'s attempts but the first.
        @available(*, deprecated, message: "use retryPolicy.maximumAttempts, which counts the first try too")
        public var maximumFailures: Int {
            get { retryPolicy.maximumAttempts - 1 }
            set { retryPolicy.maximumAttempts = newValue + 1 }
        }
        /// Whether each finished file's SHA-256 is computed (``QueuedDownload/sha256``); `true` by
        /// default, and always for a download enqueued with an expected digest.
        public var computesSHA256: Bool
        /// Whether a download's URL is journaled with its query; `true` by default, since a later
        /// process must send the query again to rejoin the download — so a token in it (a signed
        /// URL's signature, an `access_token`) is kept on disk, in the state directory only this
        /// user can read. When `false`, the journal keeps the URL up to its `?`, and a download that
        /// a later process rejoins is sent only with the request the program gives then
        /// (``RejoinedRequest``); without one it is paused with ``RequestError/Code/invalidURL``.
        public var journalsQuery: Bool
        /// What opening does with a damaged journal (a line in the middle that is not a valid
        /// record: a disk fault, an edit): `false` by default, when opening fails with
        /// ``RequestError/Code/fileIO`` naming the line and leaves the journal as it is, for you to
        /// repair or remove. When `true`, the journal is renamed `journal.damaged-TIME` in the state
        /// directory (``Recovery/damagedJournal``) and the queue opens empty; partial files of its
        /// downloads stay where they are.
        public var setsAsideDamagedJournal: Bool

        /// The queue's retries unless told otherwise: up to 6 tries in a row (5 failures resumed),
        /// after a lost or refused connection, a cut-short response, a `206` of another version
        /// (restarted from zero), any timeout, an unknown host, a `5xx` or a `429`; full-jitter
        /// backoff from 250 ms up to 30 s, or the server's `Retry-After` up to 5 minutes.
        public static let defaultRetryPolicy = RetryPolicy(
            maximumAttempts: 6, baseDelay: .milliseconds(250), maximumDelay: .seconds(30), maximumRetryAfter: .seconds(300),
            retryableStatusCodes: Set(500...599).union([429]),
            retryableErrors: [
                .connectFailed, .connectionLost, .responseTruncated, .protocolError, .transportFailure, .hostNotFound,
                .connectTimedOut, .idleTimedOut, .totalTimedOut,
            ])

        /// Creates options; every parameter has the default documented on its property.
        public init(
            maximumConcurrentDownloads: Int = 4, checkpointInterval: Int64 = 4 << 20, retryPolicy: RetryPolicy = defaultRetryPolicy,
            computesSHA256: Bool = true, journalsQuery: Bool = true, setsAsideDamagedJournal: Bool = false
        ) {
            self.maximumConcurrentDownloads = maximumConcurrentDownloads
            self.checkpointInterval = checkpointInterval
            self.retryPolicy = retryPolicy
            self.computesSHA256 = computesSHA256
            self.journalsQuery = journalsQuery
            self.setsAsideDamagedJournal = setsAsideDamagedJournal
        }

        /// Creates options whose ``retryPolicy`` is ``defaultRetryPolicy`` with
        /// `maximumFailures + 1` attempts.
        @available(*, deprecated, message: "use init(maximumConcurrentDownloads:checkpointInterval:retryPolicy:...)")
        public init(
            maximumConcurrentDownloads: Int = 4, checkpointInterval: Int64 = 4 << 20, maximumFailures: Int,
            computesSHA256: Bool = true, journalsQuery: Bool = true, setsAsideDamagedJournal: Bool = false
        ) {
            var retryPolicy = Self.defaultRetryPolicy
            retryPolicy.maximumAttempts = maximumFailures + 1
            self.init(
                maximumConcurrentDownloads: maximumConcurrentDownloads, checkpointInterval: checkpointInterval, retryPolicy: retryPolicy,
                computesSHA256: computesSHA256, journalsQuery: journalsQuery, setsAsideDamagedJournal: setsAsideDamagedJournal)
        }
    }

    /// Gives the request of a download a later process rejoins, each time that download starts:
    /// the URL with the query the journal left out (``Options/journalsQuery``), a fresh signature,
    /// credentials. Return `nil` to send the journaled request — which a download journaled
    /// without its query never is: it is paused with ``RequestError/Code/invalidURL`` instead.
    ///
    /// Called with the download as the journal has it, on the thread that starts it (the one
    /// opening the queue or calling ``resume(_:)``, or the queue's own after a transfer ends): it
    /// must return quickly and must not wait for the queue. The request must be a `GET` without a
    /// body, else the download is paused with ``RequestError/Code/invalidMethod``; its URL and
    /// headers replace the journaled ones, and the download still continues its partial file only
    /// if the server names the same version of the resource.
    public typealias RejoinedRequest = @Sendable (QueuedDownload) -> Request?

    /// What opening the queue found.
    public struct Recovery: Sendable, Hashable {
        /// Unfinished downloads rejoined.
        public var rejoined: Int
        /// Bytes found in partial files past their last checkpoint — every byte of a partial file
        /// no checkpoint names — thrown away and fetched again.
        public var discardedBytes: Int64
        /// Downloads a crash had stopped while their file was moved into place, finished by the queue.
        public var finishedOnOpening: Int
        /// Where a damaged journal was set aside (``Options/setsAsideDamagedJournal``), when it was;
        /// the queue then opened empty.
        public var damagedJournal: URL?
    }
}
