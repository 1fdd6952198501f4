/// Hands lifecycle events to the configured ``EventMonitor``s, each on its own queue; costs
/// nothing when there are none.
struct MonitorHub: Sendable {
    let monitors: [any EventMonitor]

    /// Whether any monitor listens.
    var isEmpty: Bool { monitors.isEmpty }

    /// Calls `event` on every monitor, on the monitor's queue.
    func notify(_ event: @escaping @Sendable (any EventMonitor) -> Void) {
        for monitor in monitors {
            monitor.queue.async { event(monitor) }
        }
    }
}
