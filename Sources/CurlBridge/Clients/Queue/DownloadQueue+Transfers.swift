import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Starting a download's transfer, and what its events tell the machine.
extension DownloadQueue {
    func start(_ id: UInt64) {
        guard let entry = state.withLock({ $0.machine.entries[id] }) else { return }
        let request: Request
        switch requestToSend(for: entry) {
        case .success(let chosen):
            request = chosen
        case .failure(let error):
            act { $0.couldNotStart(id, error) }
            finishClosingIfIdle()  // a close that began meanwhile waited for this start
            return
        }
        let checkpoint = DownloadCheckpoint(every: options.checkpointInterval) { [weak self] resume in
            self?.act { $0.checkpoint(id, resume) }
        }
        let downloadOptions = DownloadOptions(
            createsIntermediateDirectories: true, expectedSHA256: entry.download.expectedSHA256,
            computesSHA256: options.computesSHA256, keepsPartialFileForResume: true)
        let task = client.download(
            request, to: entry.download.destination, resumingFrom: entry.resume, options: downloadOptions,
            queue: delivery, checkpoint: checkpoint,
            progress: { [weak self] progress in self?.emit(.progress(id: id, progress), onDelivery: true) },
            completion: { [weak self] result in
                guard let self else { return }
                state.withLock { _ = $0.tasks.removeValue(forKey: id) }
                act { $0.ended(id, result) }
                finishClosingIfIdle()
            })
        // A close that began after the machine said start found no task to stop: stop it here.
        let isClosing = state.withLock { shared in
            shared.tasks[id] = task
            return shared.phase != .open
        }
        if isClosing { task.cancel(producingResumeData: { _ in }) }
    }
}
