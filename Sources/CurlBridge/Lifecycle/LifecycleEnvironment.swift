import HTTPTypes

/// What every request's lifecycle takes from its transport, made once per transport.
final class LifecycleEnvironment: Sendable {
    /// The loop attempts run on.
    let loop: CurlMultiLoop
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
    let monitors: [any EventMonitor]
    /// The transport's count of requests and retries.
    let budget: RetryBudgetLedger

    init(loop: CurlMultiLoop, defaults: RequestDefaults, configuration: Configuration) {
        self.loop = loop
        self.defaults = defaults
        defaultHeaders = configuration.defaultHeaders
        redirects = configuration.redirects
        retryPolicy = configuration.retryPolicy
        adapters = configuration.interceptors.filter(\.adaptsRequests)
        retriers = configuration.interceptors.filter(\.decidesRetries)
        monitors = configuration.eventMonitors
        budget = RetryBudgetLedger(configuration.retryBudget)
    }

    /// Whether `request` needs a lifecycle at all: anything that spans attempts or watches them.
    /// A request that needs none is handed to curl as it is, paying for nothing it does not use.
    func needsLifecycle(_ request: Request) -> Bool {
        (request.redirectPolicy ?? redirects).maximumHops > 0
            || (request.retryPolicy ?? retryPolicy).maximumAttempts > 1
            || !adapters.isEmpty || !retriers.isEmpty || !request.interceptors.isEmpty || !monitors.isEmpty
            || defaults.logging.logsAttempts(of: request)
    }
}
