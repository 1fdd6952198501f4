/// How many refreshes an ``AuthenticationInterceptor`` allows within a stretch of time before it
/// concludes that the server refuses every fresh credential and stops refreshing. Alamofire's
/// `AuthenticationInterceptor.RefreshWindow`.
///
/// A refresh that would be refresh number ``maximumRefreshes`` + 1 within the last ``interval``
/// does not start: the requests waiting for it fail with
/// ``RequestError/Code/tooManyAuthenticationRefreshes``.
public struct RefreshWindow: Sendable, Hashable {
    /// The stretch of time, ending now, over which refreshes are counted; 30 seconds by default.
    public var interval: Duration
    /// The most refreshes allowed within ``interval``; 5 by default.
    public var maximumRefreshes: Int

    /// Creates a window allowing `maximumRefreshes` refreshes per `interval`.
    public init(interval: Duration = .seconds(30), maximumRefreshes: Int = 5) {
        self.interval = interval
        self.maximumRefreshes = maximumRefreshes
    }
}
