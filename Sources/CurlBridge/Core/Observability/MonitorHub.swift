/// The configuration's event monitors as one ``RequestObserver``: each event goes to every
/// monitor, on the monitor's own queue, in order.
struct MonitorHub: RequestObserver {
    let monitors: [any EventMonitor]

    func observe(_ event: RequestEvent, id: UInt64) {
        for monitor in monitors {
            monitor.queue.async { Self.deliver(event, id: id, to: monitor) }
        }
    }

    /// Calls `monitor`'s method for `event`, if it has one.
    private static func deliver(_ event: RequestEvent, id: UInt64, to monitor: any EventMonitor) {
        switch event {
        case .started(let request): monitor.requestDidStart(request, id: id)
        case .attemptStarted(let request, let attempt, _): monitor.attemptDidStart(request, id: id, attempt: attempt)
        case .receivedHead(let head, let attempt): monitor.didReceiveHead(head, id: id, attempt: attempt)
        case .redirected(let hop): monitor.didRedirect(hop, id: id)
        case .retryScheduled(let record, let delay): monitor.didScheduleRetry(after: record, delay: delay, id: id)
        case .completed(let request, let result, _, let duration):
            monitor.requestDidComplete(request, id: id, result: result, duration: duration)
        case .attemptEnded: break
        }
    }
}
