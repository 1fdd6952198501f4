/// How many retries a transport may add to its traffic, so that retries cannot multiply the load
/// on a backend that is already failing (the "retry storm"). Set on ``Configuration/retryBudget``;
/// Finagle's and gRPC's retry budgets.
///
/// Within any ``window``, the ``RetryPolicy`` may retry at most ``minimumRetries`` plus ``ratio``
/// times the number of requests started. When the budget is spent, a failure that would have been
/// retried is reported as it is, and its ``AttemptRecord/retryDenial`` says why. Retries decided
/// by a ``RequestRetrier`` (such as a credential refresh) are not counted against it.
public struct RetryBudget: Sendable, Hashable {
    /// Retries allowed per request started, e.g. `0.2` for at most 20% more traffic.
    public var ratio: Double
    /// Retries always allowed within a window, however few requests were started.
    public var minimumRetries: Int
    /// The span over which requests and retries are counted.
    public var window: Duration

    /// Creates a budget; 20% plus 10 retries per 10 s by default.
    public init(ratio: Double = 0.2, minimumRetries: Int = 10, window: Duration = .seconds(10)) {
        self.ratio = ratio
        self.minimumRetries = minimumRetries
        self.window = window
    }

    /// 20% more traffic plus 10 retries per 10 seconds.
    public static let standard = RetryBudget()
    /// No limit: every retry the policy decides is sent.
    public static let unlimited = RetryBudget(ratio: 0, minimumRetries: .max)
}
