import CurlBridge
import Foundation
import Synchronization

extension ClientStyle {
    /// Downloads in this style; the blocking style runs on a thread of its own.
    func download(
        _ request: Request, to destination: URL, resumingFrom resumeData: ResumeData? = nil,
        options: DownloadOptions = DownloadOptions(), progress: (@Sendable (TransferProgress) -> Void)? = nil,
        through transport: Transport
    ) async -> Result<DownloadResponse, RequestError> {
        switch self {
        case .blocking:
            let client = BlockingClient(transport: transport)
            return await onWorkerThread {
                Result { () throws(RequestError) in
                    try client.download(request, to: destination, resumingFrom: resumeData, options: options, progress: progress)
                }
            }
        case .async:
            do {
                return .success(try await AsyncClient(transport: transport).download(
                    request, to: destination, resumingFrom: resumeData, options: options, progress: progress))
            } catch {
                return .failure(error)
            }
        case .callback:
            let client = CallbackClient(transport: transport)
            return await withCheckedContinuation { continuation in
                client.download(request, to: destination, resumingFrom: resumeData, options: options, progress: progress) {
                    continuation.resume(returning: $0)
                }
            }
        }
    }

    /// Sends with a progress closure in this style.
    func send(
        _ request: Request, progress: @escaping @Sendable (TransferProgress) -> Void, through transport: Transport
    ) async -> Result<Response, RequestError> {
        switch self {
        case .blocking:
            let client = BlockingClient(transport: transport)
            return await onWorkerThread { Result { () throws(RequestError) in try client.send(request, progress: progress) } }
        case .async:
            do {
                return .success(try await AsyncClient(transport: transport).send(request, progress: progress))
            } catch {
                return .failure(error)
            }
        case .callback:
            let client = CallbackClient(transport: transport)
            return await withCheckedContinuation { continuation in
                client.send(request, progress: progress) { continuation.resume(returning: $0) }
            }
        }
    }

    /// Streams in this style and collects what arrived: the head, the body, and the outcome.
    func stream(_ request: Request, bufferLimits: BufferLimits = BufferLimits(), through transport: Transport) async -> StreamedOutcome {
        switch self {
        case .blocking:
            let client = BlockingClient(transport: transport)
            return await onWorkerThread {
                do throws(RequestError) {
                    let reader = try client.stream(request, bufferLimits: bufferLimits)
                    var outcome = StreamedOutcome(head: reader.head)
                    do throws(RequestError) {
                        while let chunk = try reader.read() {
                            outcome.body.append(chunk)
                            outcome.chunks += 1
                        }
                    } catch {
                        outcome.error = error
                    }
                    return outcome
                } catch {
                    return StreamedOutcome(error: error)
                }
            }
        case .async:
            do {
                let streamed = try await AsyncClient(transport: transport).stream(request, bufferLimits: bufferLimits)
                var outcome = StreamedOutcome(head: streamed.head)
                do {
                    for try await chunk in streamed.body {
                        outcome.body.append(chunk)
                        outcome.chunks += 1
                    }
                } catch {
                    outcome.error = error
                }
                return outcome
            } catch {
                return StreamedOutcome(error: error)
            }
        case .callback:
            let client = CallbackClient(transport: transport)
            let collected = CollectedStream()
            return await withCheckedContinuation { continuation in
                client.stream(
                    request, bufferLimits: bufferLimits,
                    onResponse: { collected.head($0) },
                    onData: { collected.data($0) },
                    onComplete: { continuation.resume(returning: collected.end($0)) })
            }
        }
    }
}

/// What a stream delivered.
struct StreamedOutcome: Sendable {
    var head: ResponseHead?
    var body = Data()
    var chunks = 0
    var error: RequestError?
    /// Handler calls out of order (callback style): data before the head, or anything after the end.
    var orderViolations = 0
}

/// Collects a callback stream's deliveries.
final class CollectedStream: Sendable {
    private let outcome = Mutex(StreamedOutcome())

    func head(_ head: ResponseHead) {
        outcome.withLock {
            if $0.head != nil || $0.chunks > 0 { $0.orderViolations += 1 }
            $0.head = head
        }
    }

    func data(_ data: Data) {
        outcome.withLock {
            if $0.head == nil { $0.orderViolations += 1 }
            $0.body.append(data)
            $0.chunks += 1
        }
    }

    func end(_ result: Result<Response, RequestError>) -> StreamedOutcome {
        outcome.withLock {
            $0.error = result.failure
            return $0
        }
    }
}
