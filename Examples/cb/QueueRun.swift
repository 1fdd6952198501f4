import CurlBridge
import Foundation

/// `cb get --queue DIR -o …`: the downloads go through a ``DownloadQueue`` whose journal is in
/// DIR, so that a `cb` killed at any moment and run again with the same arguments finishes the
/// batch, fetching again only what was not safely on disk. It enqueues bare `GET`s: `-u` and `-H`
/// come from the transport's configuration (``TransferOptions/queueConfiguration(for:)``), so
/// the journal never holds them.
struct QueueRun: Sendable {
    let stateDirectory: URL
    /// Each URL and where it goes.
    let downloads: [(url: String, destination: URL)]
    let configuration: Configuration
    let parallel: Int
    let isVerbose: Bool

    func run() async -> ExitStatus {
        let transport = Transport(configuration: configuration)
        let status = await run(on: transport)
        await transport.shutdown()
        configuration.cache?.flush()  // its entries are written in the background
        return status
    }

    /// Opens the queue, adds the downloads it does not have yet, reports until each is final or
    /// paused, and closes it.
    private func run(on transport: Transport) async -> ExitStatus {
        let queue: DownloadQueue
        do throws(RequestError) {
            queue = try DownloadQueue(
                stateDirectory: stateDirectory, transport: transport, options: .init(maximumConcurrentDownloads: parallel))
        } catch {
            StandardStream.error.write("cb: \(error.message)\n")
            return ExitStatus(error)
        }
        if queue.recovery.rejoined > 0 {
            StandardStream.error.write("cb: rejoined \(queue.recovery.rejoined) unfinished download(s) from \(stateDirectory.path)\n")
        }
        // Listened to before anything is enqueued: the stream has only the events from its making
        // on, and a download may end before the last one is enqueued.
        var events = queue.events.makeAsyncIterator()
        let known = Set(queue.downloads.map { "\($0.url) \($0.destination.path)" })
        let endedBefore = Set(queue.downloads.filter(\.state.isFinal).map(\.id))  // an earlier run's: not reported again
        do throws(RequestError) {
            for download in downloads where !known.contains("\(download.url) \(download.destination.standardizedFileURL.path)") {
                try queue.enqueue(.get(download.url), to: download.destination)
            }
        } catch {
            StandardStream.error.write("cb: \(error.message)\n")
            await queue.close()
            return ExitStatus(error)
        }
        var outcome = Self.outcome(queue.downloads)
        var reported = Set<Report>()
        while outcome == nil, !Task.isCancelled, let event = await events.next() {
            handle(event, reported: &reported)
            outcome = Self.outcome(queue.downloads)
        }
        await queue.close()
        // The queue's state runs ahead of its events: the batch can be judged over while the
        // events of its last downloads are still on their way, or not yet sent when closing ends
        // the stream. The ones on their way are reported from the stream, and any final state
        // still unreported from the queue itself, once each.
        while let event = await events.next() { handle(event, reported: &reported) }
        for download in queue.downloads where download.state.isFinal || download.state == .paused {
            if !endedBefore.contains(download.id) { report(download, reported: &reported) }
        }
        return outcome ?? .interrupted
    }

    /// A download's state, as reported: each is reported once.
    private struct Report: Hashable {
        let id: UInt64
        let state: QueuedDownload.State
    }

    /// Reports one event: a download's change (each in verbose mode, a failure always), or a full disk.
    private func handle(_ event: DownloadQueueEvent, reported: inout Set<Report>) {
        switch event {
        case .changed(let download):
            report(download, reported: &reported)
        case .diskFull(let error):
            StandardStream.error.write("cb: \(error.message): the queue is paused; make room and run again\n")
        case .progress:
            break
        }
    }

    /// How a batch ends once every download is final or paused: the first failure's status.
    private static func outcome(_ downloads: [QueuedDownload]) -> ExitStatus? {
        guard downloads.allSatisfy({ $0.state.isFinal || $0.state == .paused }) else { return nil }
        if let failed = downloads.first(where: { $0.state == .failed || $0.state == .paused }) {
            return failed.error.map(ExitStatus.init) ?? .failure
        }
        return .success
    }

    private func report(_ download: QueuedDownload, reported: inout Set<Report>) {
        guard reported.insert(Report(id: download.id, state: download.state)).inserted else { return }
        guard isVerbose || download.state == .failed else { return }
        var line = "* \(download.destination.lastPathComponent): \(download.state.rawValue)"
        if download.state == .finished { line += ", \(download.bytesOnDisk) bytes, sha256 \(download.sha256 ?? "-")" }
        if let error = download.error, download.state == .failed { line += ": \(error.message)" }
        StandardStream.error.write(line + "\n")
    }
}
