import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A one-shot request body made while the request is sent — by an `AsyncSequence` of chunks or a
/// pull closure — through a bounded buffer between its producer and curl's read callback.
///
/// The producer runs off the transport's queue (a task for a sequence, a serial queue of its own
/// for a pull closure) and stops while the buffer holds ``highWatermark`` bytes. When curl asks for
/// bytes the buffer does not have yet, the read pauses the upload (a paused transfer is not idle)
/// and the next chunk wakes it through the closure given to ``start(wake:)``.
///
/// Not rewindable: once bytes were handed to curl they are gone, so a request that would send the
/// body twice (curl retrying on a fresh connection) fails with ``RequestError/Code/bodyNotRewindable``.
final class BodyStream: Sendable, Hashable {
    /// How bytes are made.
    enum Producer: Sendable {
        /// Returns the next chunk, or `nil` at the end; called on a serial queue of the stream's own.
        case pull(@Sendable () throws -> Data?)
        /// Feeds every chunk to the stream with ``BodyStream/append(_:)`` and returns at the end; run in a task.
        case sequence(@Sendable (BodyStream) async throws -> Void)
    }

    /// What a read from curl's side found.
    enum ReadResult {
        /// This many bytes were copied.
        case bytes(Int)
        /// No byte is ready yet: pause the upload until the wake closure runs.
        case pause
        /// The body is complete.
        case end
        /// The producer failed or produced a length other than the announced one.
        case fail(RequestError)
    }

    /// Buffered bytes at which the producer stops until curl has taken some: 1 MiB.
    static let highWatermark = 1 << 20

    /// The announced length in bytes (`Content-Length`), or `nil` for a chunked upload.
    let length: Int64?
    private let producer: Producer
    /// A ``PosixLock``, not a `Mutex`: the producer and the consumer contend for it, and
    /// ThreadSanitizer sees `Mutex`'s contended hand-over on Linux as a race (see ``PosixLock``).
    private let state = PosixLock(State())

    private struct State {
        var chunks: [Data] = []
        /// Read position within `chunks.first`.
        var offsetInFirst = 0
        var buffered = 0
        /// Bytes the producer made in all.
        var produced: Int64 = 0
        /// Bytes handed to curl in all.
        var consumed: Int64 = 0
        var isStarted = false
        var isFinished = false
        var isClosed = false
        var failure: (any Error)?
        /// curl found nothing to read and waits for ``wake``.
        var readerIsWaiting = false
        var wake: (@Sendable () -> Void)?
        /// Pull producer: a pull is scheduled or running.
        var isPulling = false
        /// Sequence producer: waiting for room in the buffer.
        var producerWaiting: CheckedContinuation<Void, Never>?
        var task: Task<Void, Never>?
    }

    /// A stream of `length` bytes (or unknown) made by `producer`.
    init(length: Int64?, producer: Producer) {
        self.length = length
        self.producer = producer
    }

    static func == (lhs: BodyStream, rhs: BodyStream) -> Bool { lhs === rhs }

    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Starts the producer; `wake` is called (from any thread) when bytes arrive for a reader that
    /// found none. Returns `false` if the stream was already started: a stream is sent once only.
    func start(wake: @escaping @Sendable () -> Void) -> Bool {
        let isFirst = state.withLock { state in
            guard !state.isStarted else { return false }
            state.isStarted = true
            state.wake = wake
            return true
        }
        guard isFirst else { return false }
        switch producer {
        case .pull:
            schedulePull()
        case .sequence(let feed):
            let task = Task { [self] in
                do {
                    try await feed(self)
                    finish(nil)
                } catch {
                    finish(Task.isCancelled ? CancellationError() : error)
                }
            }
            state.withLock { $0.task = task }
        }
        return true
    }

    /// Adds a chunk from a sequence producer, suspending while the buffer is full.
    func append(_ chunk: Data) async {
        guard !chunk.isEmpty else { return }
        deliver(chunk)
        while true {
            let mustWait = state.withLock { $0.buffered >= Self.highWatermark && !$0.isClosed }
            guard mustWait else { return }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    guard state.buffered >= Self.highWatermark, !state.isClosed else { return true }
                    state.producerWaiting = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    /// Copies buffered bytes into `buffer` (curl's read callback, on the transport's queue).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        let (result, wakeProducer) = state.withLock { state -> (ReadResult, Bool) in
            if let failure = state.failure {
                return (.fail(Self.failure(failure)), false)
            }
            if state.isClosed {
                return (.fail(RequestError(.bodyNotRewindable, "the body stream was closed by the send that started it")), false)
            }
            if let length, state.produced > length {
                return (.fail(RequestError(
                    .bodySourceFailed, "the body stream made more than the \(length) bytes it announced")), false)
            }
            // With a length, the last byte waits for the producer's end: curl stops reading once it
            // has the announced length, so only then can a stream that makes more be caught.
            let room = length.map { min(buffer.count, Int($0 - state.consumed) - (state.isFinished ? 0 : 1)) } ?? buffer.count
            guard state.buffered > 0, room > 0 else {
                if state.isFinished { return (endOrMismatch(state), false) }
                state.readerIsWaiting = true
                return (.pause, true)
            }
            var copied = 0
            while copied < room, let first = state.chunks.first {
                let count = min(room - copied, first.count - state.offsetInFirst)
                let start = first.startIndex + state.offsetInFirst
                first.copyBytes(
                    to: UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<(copied + count)]).bindMemory(to: UInt8.self),
                    from: start..<(start + count))
                copied += count
                state.offsetInFirst += count
                if state.offsetInFirst == first.count {
                    state.chunks.removeFirst()
                    state.offsetInFirst = 0
                }
            }
            state.buffered -= copied
            state.consumed += Int64(copied)
            return (.bytes(copied), state.buffered < Self.highWatermark / 2)
        }
        if wakeProducer { makeRoom() }
        return result
    }

    /// Whether curl may move back to `offset`: only to the start, before any byte was handed over.
    func canRewind(to offset: Int64) -> Bool {
        state.withLock { $0.consumed == 0 && offset == 0 }
    }

    /// Stops the producer and drops what is buffered; called when the transfer ends.
    func close() {
        let (task, waiting) = state.withLock { state in
            state.isClosed = true
            state.chunks = []
            state.buffered = 0
            state.wake = nil
            defer { state.producerWaiting = nil }
            return (state.task, state.producerWaiting)
        }
        task?.cancel()
        waiting?.resume()
    }

    // MARK: Producer side

    private func deliver(_ chunk: Data) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.isClosed else { return nil }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            state.produced += Int64(chunk.count)
            return takeWaitingReader(&state)
        }
        wake?()
    }

    private func finish(_ error: (any Error)?) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.isClosed else { return nil }
            state.isFinished = true
            if let error { state.failure = error }
            return takeWaitingReader(&state)
        }
        wake?()
    }

    private func takeWaitingReader(_ state: inout State) -> (@Sendable () -> Void)? {
        guard state.readerIsWaiting else { return nil }
        state.readerIsWaiting = false
        return state.wake
    }

    /// Lets the producer make more bytes after curl took some.
    private func makeRoom() {
        switch producer {
        case .pull:
            schedulePull()
        case .sequence:
            let waiting = state.withLock { state in
                defer { state.producerWaiting = nil }
                return state.producerWaiting
            }
            waiting?.resume()
        }
    }

    /// Where pull closures run; ``State/isPulling`` keeps one pump at a time per stream.
    private static let pullQueue = DispatchQueue(label: "CurlBridge.BodyStream.pull", attributes: .concurrent)

    private func schedulePull() {
        let schedule = state.withLock { state in
            guard !state.isPulling, !state.isFinished, !state.isClosed, state.buffered < Self.highWatermark else { return false }
            state.isPulling = true
            return true
        }
        if schedule { Self.pullQueue.async { self.pump() } }
    }

    /// Pulls until the buffer is full, the body ends, or the stream is closed.
    private func pump() {
        guard case .pull(let next) = producer else { return }
        while true {
            let proceed = state.withLock { state in
                guard !state.isFinished, !state.isClosed, state.buffered < Self.highWatermark else {
                    state.isPulling = false
                    return false
                }
                return true
            }
            guard proceed else { return }
            do {
                if let chunk = try next() {
                    if !chunk.isEmpty { deliver(chunk) }
                } else {
                    finish(nil)
                }
            } catch {
                finish(error)
            }
        }
    }

    // MARK: Outcomes

    private func endOrMismatch(_ state: State) -> ReadResult {
        guard let length, state.produced != length else { return .end }
        return .fail(RequestError(
            .bodySourceFailed, "the body stream made \(state.produced) bytes but announced \(length)"))
    }

    private static func failure(_ error: any Error) -> RequestError {
        if error is CancellationError {
            return RequestError(.cancelled, "the task feeding the body stream was cancelled", underlying: error)
        }
        return RequestError(.bodySourceFailed, "the body stream failed: \(error)", underlying: error)
    }
}
