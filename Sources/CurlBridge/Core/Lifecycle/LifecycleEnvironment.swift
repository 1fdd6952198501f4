import HTTPTypes

/// What every request's executor takes from its transport, made once per transport.
final class LifecycleEnvironment: Sendable {
    /// The transport's requests in flight, and its engine, for work handed to the loop.
    let registry: LoopBound<RequestRegistry>
    /// What requests are prepared with.
    let defaults: RequestDefaults
    /// The configuration's default headers, filtered on hops to another origin.
    let defaultHeaders: HTTPFields
    /// The client-wide policies and hooks.
    let redirects: RedirectPolicy
    let retryPolicy: RetryPolicy
    /// The configuration's interceptors that adapt, and those that decide retries.
    let adapters: [any RequestAdapter]
    let retriers: [any RequestRetrier]
    /// The configuration's event monitors.
    let monitors: MonitorHub
    /// The transport's count of requests and retries.
    let budget: RetryBudgetLedger

    init(registry: LoopBound<RequestRegistry>, defaults: RequestDefaults, configuration: Configuration) {
        self.registry = registry
        self.defaults = defaults
        defaultHeaders = configuration.defaultHeaders
        redirects = configuration.redirects
        retryPolicy = configuration.retryPolicy
        adapters = configuration.interceptors.filter(\.adaptsRequests)
        retriers = configuration.interceptors.filter(\.decidesRetries)
        monitors = MonitorHub(monitors: configuration.eventMonitors)
        budget = RetryBudgetLedger(configuration.retryBudget)
    }
}
