import CoreMetrics
import CurlBridge
import Tracing

extension Configuration {
    /// Adds a ``MetricsMonitor`` to `Configuration.eventMonitors` and returns it.
    ///
    /// ```swift
    /// var configuration = Configuration(baseURL: api)
    /// configuration.enableMetrics()                     // the bootstrapped MetricsSystem
    /// let transport = Transport(configuration: configuration)
    /// ```
    ///
    /// - Parameters:
    ///   - prefix: What every metric name starts with; `curlbridge` by default.
    ///   - dimensions: Labels added to every metric; none by default.
    ///   - factory: Where metrics are made; `nil` (the default) uses `MetricsSystem`'s.
    @discardableResult
    public mutating func enableMetrics(
        prefix: String = "curlbridge", dimensions: [(String, String)] = [], factory: (any MetricsFactory)? = nil
    ) -> MetricsMonitor {
        let monitor = MetricsMonitor(prefix: prefix, dimensions: dimensions, factory: factory)
        eventMonitors.append(monitor)
        return monitor
    }

    /// Adds a ``TracingInterceptor`` to `Configuration.interceptors` and
    /// `Configuration.eventMonitors` and returns it.
    ///
    /// It takes the configuration's `baseURL` as it is now (set it first) to make relative
    /// request URLs absolute in `url.full`. The interceptor goes last among the interceptors, so
    /// the context is injected into the request as the others adapted it.
    ///
    /// ```swift
    /// var configuration = Configuration(baseURL: api)
    /// configuration.enableTracing()                     // the bootstrapped InstrumentationSystem
    /// let transport = Transport(configuration: configuration)
    /// ```
    ///
    /// - Parameters:
    ///   - tracer: The tracer; `nil` (the default) uses `InstrumentationSystem`'s, looked up per request.
    ///   - sensitiveQueryNames: Query parameter names whose values `url.full` redacts;
    ///     `Configuration.logging`'s `LoggingOptions.sensitiveQueryNames` and OpenTelemetry's own by default.
    @discardableResult
    public mutating func enableTracing(
        tracer: (any Tracer)? = nil, sensitiveQueryNames: Set<String>? = nil
    ) -> TracingInterceptor {
        let interceptor = TracingInterceptor(
            tracer: tracer, baseURL: baseURL,
            sensitiveQueryNames: sensitiveQueryNames
                ?? logging.sensitiveQueryNames.union(TracingInterceptor.standardSensitiveQueryNames))
        interceptors.append(interceptor)
        eventMonitors.append(interceptor)
        return interceptor
    }
}
