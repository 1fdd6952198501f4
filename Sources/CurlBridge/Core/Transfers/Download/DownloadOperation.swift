#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// One download, whichever client runs it: prepares the partial file (on the caller's thread),
/// writes the body into it as it arrives (on the transport's queue), and finishes — verify, flush,
/// rename, or keep the partial file for resume data — off the transport's queue.
///
/// The three clients differ only in how they wait for ``finish(_:)``'s result.
final class DownloadOperation: BodySink, Sendable {
    /// The request as sent, with `Range`/`If-Range` when resuming.
    let request: Request
    /// Where the file goes.
    let destination: URL
    private let options: DownloadOptions
    /// Flushes the partial file every so many bytes and reports what is safely on disk.
    private let checkpoint: DownloadCheckpoint?
    private let state: PosixLock<State>

    /// The partial file, its hasher, and where the body is (the value that decides).
    private struct State {
        var file: DownloadFile
        /// The SHA-256 of the bytes in the file, when the options ask for it
        /// (``DownloadOptions/hashesFile``).
        var hasher: SHA256Hasher?
        var body: DownloadBodyState
    }

    private init(
        request: Request, destination: URL, options: DownloadOptions, checkpoint: DownloadCheckpoint?, state: State
    ) {
        self.request = request
        self.destination = destination
        self.options = options
        self.checkpoint = checkpoint
        self.state = PosixLock(state)
    }

    /// Checks the destination and opens the partial file — a new one, or the one `resumeData`
    /// names when it still holds its bytes — before anything is requested.
    static func prepare(
        _ request: Request, to destination: URL, options: DownloadOptions, resuming resumeData: ResumeData?,
        checkpoint: DownloadCheckpoint? = nil
    ) -> Result<DownloadOperation, RequestError> {
        do throws(RequestError) {
            try checkDestination(destination, options: options)
            if options.hashesFile, !SHA256Hasher.isAvailable {
                throw RequestError(.transportFailure, "cannot compute the file's SHA-256: this process has no OpenSSL libcrypto")
            }
            if let resumeData {
                try resumeData.check(resumingTo: destination)
            }
            if let resumeData, let (file, hasher) = try reopen(resumeData, hashingWith: options.makeHasher()) {
                let resumed = request
                    .header("Range", "bytes=\(resumeData.bytesOnDisk)-")
                    .header("If-Range", resumeData.validator.headerValue)
                return .success(DownloadOperation(
                    request: resumed, destination: destination, options: options, checkpoint: checkpoint, state: State(
                        file: file, hasher: hasher, body: DownloadBodyState(
                            resumedFrom: resumeData.bytesOnDisk, continuesPartialFile: true, validator: resumeData.validator,
                            expectedLength: resumeData.expectedLength))))
            }
            let file = try DownloadFile.create(besides: destination)
            return .success(DownloadOperation(
                request: request, destination: destination, options: options, checkpoint: checkpoint,
                state: State(file: file, hasher: options.makeHasher(), body: DownloadBodyState())))
        } catch {
            return .failure(error.attributed(to: request.method, url: request.url))
        }
    }

    private static func checkDestination(_ destination: URL, options: DownloadOptions) throws(RequestError) {
        guard destination.isFileURL else {
            throw RequestError(.fileIO, "the destination \(destination.absoluteString.debugDescription) is not a file URL")
        }
        let directory = destination.deletingLastPathComponent()
        let isDirectory = FileManager.default.isDirectory(atPath: directory.path)
        if isDirectory == nil {
            guard options.createsIntermediateDirectories else {
                throw RequestError(.fileIO, "the destination directory \(directory.path.debugDescription) does not exist")
            }
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw RequestError(.fileIO, "cannot create \(directory.path.debugDescription): \(error)", underlying: error)
            }
        } else if isDirectory == false {
            throw RequestError(.fileIO, "\(directory.path.debugDescription) is not a directory")
        }
        if !options.replacesExistingFile, FileManager.default.fileExists(atPath: destination.path) {
            throw RequestError(.destinationExists, "\(destination.path.debugDescription) exists and the options say not to replace it")
        }
    }

    /// The partial file of `resumeData`, its bytes fed to `hasher` when there is one (read once,
    /// so that the finished file's digest covers them), or `nil` when it no longer holds them.
    private static func reopen(
        _ resumeData: ResumeData, hashingWith hasher: SHA256Hasher?
    ) throws(RequestError) -> (DownloadFile, SHA256Hasher?)? {
        guard resumeData.bytesOnDisk > 0, var file = try DownloadFile.reopen(resumeData.partialFileURL, keeping: resumeData.bytesOnDisk) else {
            return nil
        }
        guard let hasher else { return (file, nil) }
        do throws(RequestError) {
            try file.hash(first: resumeData.bytesOnDisk, into: hasher)
        } catch {
            file.closeDescriptor()
            throw error
        }
        return (file, hasher)
    }

    // MARK: On the transport's queue

    /// Events that write the body into the partial file. `progress` counts bytes kept from an
    /// earlier attempt as received.
    func events(
        progress: (@Sendable (TransferProgress) -> Void)?,
        onComplete: @escaping @Sendable (consuming Result<Response, RequestError>) -> Void
    ) -> TransferEvents {
        var events = TransferEvents(onComplete: onComplete)
        events.onResponseHead = { [self] head in receiveHead(head) }
        events.body = self
        if let progress {
            events.onProgress = { [self] reported in
                let base = state.withLock { $0.body.resumedFrom }
                var counted = reported
                counted.bytesReceived = reported.bytesReceived.addingSaturated(base)
                counted.expectedBytesToReceive = reported.expectedBytesToReceive.map { $0.addingSaturated(base) }
                progress(counted)
            }
        }
        return events
    }

    private func receiveHead(_ head: ResponseHead) -> RequestError? {
        state.withLock { state -> RequestError? in
            switch state.body.headArrived(head, acceptable: options.acceptableStatusCodes.contains(head.status.code)) {
            case .proceed:
                return nil
            case .startOver:
                do throws(RequestError) { try startOver(&state) } catch { return error }
                return nil
            case .fail(let refusal, let startingOver):
                if startingOver {
                    do throws(RequestError) { try startOver(&state) } catch { return error }
                }
                return refusal
            }
        }
    }

    /// Writes body bytes into the partial file (or keeps the start of an error body).
    func write(_ bytes: UnsafeRawBufferPointer) -> BodyChunkVerdict {
        state.withLock { state -> BodyChunkVerdict in
            switch state.body.pieceArrived(bytes, maximum: options.maximumSize) {
            case .kept:
                return .accept
            case .fail(let error):
                return .fail(error)
            case .write:
                do throws(RequestError) {
                    try state.file.write(bytes)
                } catch {
                    state.body.writeFailed(error)
                    return .fail(error)
                }
                state.hasher?.update(bytes)
                if state.body.pieceWritten(bytes.count, checkpointInterval: checkpoint?.interval), let checkpoint {
                    do throws(RequestError) { try flush(checkpoint, &state) } catch { return .fail(error) }
                }
                return .accept
            }
        }
    }

    /// Flushes the partial file and reports its bytes to `checkpoint`, when it could be resumed.
    private func flush(_ checkpoint: DownloadCheckpoint, _ state: inout State) throws(RequestError) {
        guard let validator = state.body.validator, state.body.isResumable else { return }
        try state.file.flush()
        state.body.flushedAll()
        checkpoint.handler(ResumeData(
            url: StoredURL(request.url).string, validator: validator, bytesOnDisk: state.body.written, partialFileURL: state.file.url,
            destination: destination, expectedLength: state.body.expectedLength))
    }

    /// Empties the partial file of bytes kept from an earlier attempt, to write from byte 0.
    private func startOver(_ state: inout State) throws(RequestError) {
        try state.file.truncate()
        state.body.startedOver()
        state.hasher = options.makeHasher()
    }

    // MARK: Off the transport's queue

    /// Verifies, flushes and moves the file into place on success; otherwise keeps the partial
    /// file for resume data when it can be resumed and resume data was asked for — by the options,
    /// by the caller when `resumeDataAsked`, or by resuming — and deletes it when not. Blocking
    /// file work: never call it on the transport's queue.
    func finish(_ outcome: Result<Response, RequestError>, resumeDataAsked: Bool = false) -> Result<DownloadResponse, RequestError> {
        state.withLock { state in
            let result = conclude(
                outcome, keepsPartialFile: resumeDataAsked || options.keepsPartialFileForResume || state.body.continuesPartialFile, &state)
            if case .failure(let error) = result, error.resumeData == nil { state.file.discard() }
            return result.mapError { $0.attributed(to: request.method, url: request.url) }
        }
    }

    private func conclude(
        _ outcome: Result<Response, RequestError>, keepsPartialFile: Bool, _ state: inout State
    ) -> Result<DownloadResponse, RequestError> {
        let response: Response
        switch outcome {
        case .failure(let error):
            return .failure(error.resumable(with: resumeData(after: error.code, asked: keepsPartialFile, &state)))
        case .success(let received):
            response = received
        }
        if case .collectingErrorBody(let body) = state.body.phase {
            var errorResponse = response
            errorResponse.body = body
            let error = RequestError(
                .unacceptableStatus, "status \(response.status.code) is not acceptable for a download",
                url: response.url, response: errorResponse)
            // A failing resume attempt (say a 503) leaves the partial bytes valid; a 416 does not.
            let partialBytesStillValid = state.body.resumedFrom > 0 && response.status.code != 416
            return .failure(error.resumable(
                with: resumeData(after: error.code, asked: partialBytesStillValid && keepsPartialFile, &state)))
        }
        // A 206 that stops short of the end, or a body that does not add up: never a complete file.
        // (With a content encoding, the announced length counts encoded bytes, not the file's.)
        if let expected = state.body.expectedLength, state.body.written != expected, !state.body.isContentEncoded,
            response.requestMethod != .head {
            let error = RequestError(
                .responseTruncated, "the download has \(state.body.written) of the resource's \(expected) bytes", url: response.url)
            return .failure(error.resumable(with: resumeData(after: error.code, asked: keepsPartialFile, &state)))
        }
        let digest = state.hasher?.finalize()
        if let expected = options.expectedSHA256, digest != expected.lowercased() {
            return .failure(RequestError(
                .integrityMismatch, "the download's SHA-256 is \(digest ?? "unknown"), expected \(expected.lowercased())"))
        }
        do throws(RequestError) {
            if let checkpoint {
                try flush(checkpoint, &state)  // what a restart needs to finish the commit itself
            }
            try state.file.commit(to: destination, replacing: options.replacesExistingFile)
        } catch {
            return .failure(error)
        }
        return .success(DownloadResponse(
            status: response.status, headerFields: response.headerFields, fileURL: destination,
            bytesWritten: state.body.written, resumedFromOffset: state.body.resumedFrom, sha256: digest,
            url: response.url, httpVersion: response.httpVersion, metrics: response.metrics, redirects: response.redirects,
            attempts: response.attempts))
    }

    /// Resume data for the partial file after a failure, closing (and keeping) the file; `nil`
    /// when it was not `asked` for or the download cannot be resumed.
    private func resumeData(after code: RequestError.Code, asked: Bool, _ state: inout State) -> ResumeData? {
        guard asked, state.body.failureKeepsBytes(code), state.body.written > 0,
            let validator = state.body.validator, state.body.isResumable
        else { return nil }
        // With checkpoints, resume data names only flushed bytes: a journal may record it.
        var kept = state.body.written
        if checkpoint != nil {
            do throws(RequestError) { try state.file.flush() } catch { kept = state.body.flushed }
        }
        state.file.closeDescriptor()
        guard kept > 0 else { return nil }
        return ResumeData(
            url: StoredURL(request.url).string, validator: validator, bytesOnDisk: kept, partialFileURL: state.file.url,
            destination: destination, expectedLength: state.body.expectedLength)
    }
}
