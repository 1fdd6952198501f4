#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

// Adding downloads, and the request each one sends.
extension DownloadQueue {
    /// Adds a `GET` download of `request` to `destination` (its directory created if missing; an
    /// existing file is replaced when the download finishes) and returns its identifier, once the
    /// journal holds it.
    ///
    /// The journal keeps the request without its secrets: no `Authorization`, `Proxy-Authorization`
    /// or `Cookie`, no sensitive header, no ``Request/credential`` and no user info in the URL; the
    /// query unless ``Options/journalsQuery`` is `false`.
    ///
    /// - Parameters:
    ///   - request: A `GET` without a body.
    ///   - destination: A `file:` URL naming a file.
    ///   - expectedSHA256: The SHA-256 the file must have, as 64 hexadecimal digits; `nil` by
    ///     default. Journaled with the download: a file with another digest (in this process or a
    ///     later one) fails the download with ``RequestError/Code/integrityMismatch`` and is never
    ///     moved into place.
    /// - Throws: ``RequestError/Code/invalidMethod`` for a method other than `GET`, with a body;
    ///   ``RequestError/Code/integrityMismatch`` for an `expectedSHA256` that is not 64
    ///   hexadecimal digits (no file could match it); ``RequestError/Code/fileIO`` for a
    ///   destination that is not a file path, when the journal cannot be written, the queue is
    ///   closing, or it has used every identifier.
    @discardableResult
    public func enqueue(_ request: Request, to destination: URL, expectedSHA256: String? = nil) throws(RequestError) -> UInt64 {
        try Self.checkIsDownload(request)
        let path = destination.standardizedFileURL.path
        guard destination.isFileURL, QueueJournal.isDestinationPath(path) else {
            throw RequestError(.fileIO, "the destination \(destination.absoluteString.debugDescription) is not a file URL naming a file")
        }
        let expected = expectedSHA256?.lowercased()
        if let expected, !QueueJournal.isSHA256(expected) {
            throw RequestError(
                .integrityMismatch, "the expected SHA-256 \(expected.debugDescription) is not 64 hexadecimal digits: no file can match it")
        }
        let secret: Set<HTTPField.Name> = request.sensitiveHeaderNames.union([.authorization, .proxyAuthorization, .cookie])
        let headers = request.headerFields.filter { !secret.contains($0.name) }.map { [$0.name.rawName, $0.value] }
        let url = StoredURL(request.url, keepsQuery: options.journalsQuery)
        let (id, actions, flush) = try state.withLock {
            (shared: inout Shared) throws(RequestError) -> (UInt64, [DownloadQueueState.Action], QueueJournal.PendingFlush?) in
            guard shared.phase == .open, shared.journal != nil else {
                throw RequestError(.fileIO, "the download queue of \(stateDirectory.path) is closed")
            }
            var machine = shared.machine
            guard let (id, actions) = machine.enqueue(
                url: url, headers: headers, destination: URL(fileURLWithPath: path), expectedSHA256: expected, original: request)
            else {
                throw RequestError(.fileIO, "the download queue of \(stateDirectory.path) has used every identifier")
            }
            if case .journal(let record)? = actions.first { try shared.journal?.append(record) }
            shared.machine = machine
            return (id, Array(actions.dropFirst()), shared.journal?.pendingFlush())
        }
        // Flushed outside the lock; a disk that refuses the flush (the record is written) is
        // reported as a full disk is, and the download stays queued.
        if let failure = flush?.run(sync) { emit(.diskFull(failure)) }
        perform(actions)
        return id
    }

    /// Throws unless `request` is a `GET` without a body: what a queue sends.
    static func checkIsDownload(_ request: Request) throws(RequestError) {
        guard request.method == .get, request.body == nil else {
            throw RequestError(.invalidMethod, "a download queue sends GET requests without a body", method: request.method, url: request.url)
        }
    }

    /// The request to send for `entry`: the caller's own, while the process that enqueued it lives;
    /// else the program's ``RejoinedRequest``, or the journaled one when that gives none — never a
    /// URL journaled without its query.
    func requestToSend(for entry: DownloadQueueState.Entry) -> Result<Request, RequestError> {
        if let original = entry.original { return .success(original) }
        if let supplied = rejoinedRequest?(entry.download) {
            do throws(RequestError) {
                try Self.checkIsDownload(supplied)
            } catch {
                return .failure(error)
            }
            return .success(supplied)
        }
        guard !entry.omitsQuery else {
            return .failure(RequestError(
                .invalidURL,
                "download \(entry.download.id) was journaled without its query, and the program gave no request for it (DownloadQueue.RejoinedRequest)",
                url: entry.download.url))
        }
        var fields = HTTPFields()
        for pair in entry.headers where pair.count == 2 {
            if let name = HTTPField.Name(pair[0]) { fields.append(HTTPField(name: name, value: pair[1])) }
        }
        return .success(Request.get(entry.download.url).headers(fields))
    }
}
