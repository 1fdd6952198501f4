import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization
import Testing

/// Cancelling a download produces resume data in every style, and resuming completes the file.
@Suite(.hangGuard) struct DownloadCancellationTests {
    /// The server sends this many bytes of the resource, then stalls until the client gives up.
    static let sentBeforeStall = 300_000
    static let resourceLength = 1_000_000
    static let resumable = DownloadOptions(keepsPartialFileForResume: true)

    @Test(arguments: ClientStyle.allCases)
    func cancellingProducesResumeDataAndResumingCompletesTheFile(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("cancelled.bin")
        let request = Request.get("resource/\(Self.resourceLength)?stall-after=\(Self.sentBeforeStall)")
        let stalled = Stalled(at: Int64(Self.sentBeforeStall))
        let error = try #require(await cancelledDownload(style, request, to: destination, stalled: stalled, through: transport))
        #expect(error.code == .cancelled)
        let resumeData = try #require(error.resumeData)
        #expect(resumeData.bytesOnDisk == Int64(Self.sentBeforeStall))
        #expect(!FileManager.default.fileExists(atPath: destination.path))

        let resumed = try await style.download(
            .get("resource/\(Self.resourceLength)"), to: destination, resumingFrom: resumeData, through: transport
        ).get()
        #expect(resumed.resumedFromOffset == Int64(Self.sentBeforeStall))
        expectSameBytes(try Data(contentsOf: destination), resourceBytes(count: Self.resourceLength))
        #expect(scratch.contents == ["cancelled.bin"])
    }

    @Test func cancellingAFinishedCallbackDownloadHandsNilResumeData() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (outcomes, delivery) = AsyncStream<Result<DownloadResponse, RequestError>>.makeStream()
        let task = CallbackClient(transport: transport).download(.get("resource/1000"), to: scratch.file("done.bin")) {
            delivery.yield($0)
        }
        #expect(try await outcomes.first { _ in true }?.get().bytesWritten == 1000)
        let (handed, hand) = AsyncStream<ResumeData?>.makeStream()
        task.cancel { hand.yield($0) }
        let resumeData = await handed.first { _ in true }
        #expect(resumeData == .some(nil))
    }

    /// A callback download cancelled without asking for resume data, and with the default
    /// options, leaves nothing behind.
    @Test func aPlainCancelOfACallbackDownloadLeavesNothingBehind() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let stalled = Stalled(at: Int64(Self.sentBeforeStall))
        let (outcomes, delivery) = AsyncStream<Result<DownloadResponse, RequestError>>.makeStream()
        let task = CallbackClient(transport: transport).download(
            .get("resource/\(Self.resourceLength)?stall-after=\(Self.sentBeforeStall)"), to: scratch.file("gone.bin"),
            progress: stalled.observe
        ) { delivery.yield($0) }
        await stalled.reached()
        task.cancel()
        let error = await outcomes.first { _ in true }?.failure
        #expect(error?.code == .cancelled)
        #expect(error?.resumeData == nil)
        #expect(scratch.contents.isEmpty)
    }

    /// Starts a download in `style`, cancels it once all bytes before the stall arrived, and
    /// returns its error: the blocking and async downloads ask for resume data in their options,
    /// the callback one with `cancel(producingResumeData:)` alone.
    private func cancelledDownload(
        _ style: ClientStyle, _ request: Request, to destination: URL, stalled: Stalled, through transport: Transport
    ) async -> RequestError? {
        switch style {
        case .blocking:
            let client = BlockingClient(transport: transport)
            let canceller = TransferCanceller()
            async let outcome = onWorkerThread {
                Result { () throws(RequestError) in
                    try client.download(
                        request, to: destination, options: Self.resumable, cancellation: canceller, progress: stalled.observe)
                }
            }
            await stalled.reached()
            canceller.cancel()
            return await outcome.failure
        case .async:
            let client = AsyncClient(transport: transport)
            let task = Task { () async throws(RequestError) -> DownloadResponse in
                try await client.download(request, to: destination, options: Self.resumable, progress: stalled.observe)
            }
            await stalled.reached()
            task.cancel()
            return await task.result.failure as? RequestError
        case .callback:
            let client = CallbackClient(transport: transport)
            let (outcomes, delivery) = AsyncStream<Result<DownloadResponse, RequestError>>.makeStream()
            let (resumeDatas, handed) = AsyncStream<ResumeData?>.makeStream()
            let task = client.download(request, to: destination, progress: stalled.observe) { delivery.yield($0) }
            await stalled.reached()
            task.cancel { handed.yield($0) }
            let handedResumeData = await resumeDatas.first { _ in true } ?? nil
            let error = await outcomes.first { _ in true }?.failure
            #expect(handedResumeData != nil && handedResumeData == error?.resumeData)
            return error
        }
    }
}

/// Waits until a download's progress reached a byte count.
final class Stalled: Sendable {
    private let target: Int64
    private let state = Mutex<(reached: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    init(at target: Int64) {
        self.target = target
    }

    /// The progress closure.
    var observe: @Sendable (TransferProgress) -> Void {
        { progress in
            guard progress.bytesReceived >= self.target else { return }
            let waiter = self.state.withLock { state in
                state.reached = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// Returns once progress reached the target.
    func reached() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.reached { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}
