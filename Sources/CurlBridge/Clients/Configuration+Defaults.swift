#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Logging

// The configuration's defaults name the engine (libcurl's version in the `User-Agent`), so they
// are made where the tiers meet; the core's `Configuration` only holds the values.
extension Configuration {
    /// Creates a configuration; every parameter has the default documented on its property.
    public init(
        baseURL: URL? = nil,
        timeouts: Timeouts = .standard,
        defaultHeaders: HTTPFields = Configuration.standardHeaders,
        tls: TLSConfiguration = TLSConfiguration(),
        connectionLimits: ConnectionLimits = ConnectionLimits(),
        httpVersion: HTTPVersionPreference = .http2OverTLS,
        maximumBodySize: Int = 64 << 20,
        decodesContentEncoding: Bool = true,
        receiveBufferSize: Int = 512 << 10,
        logger: Logger = Logger(label: "CurlBridge"),
        redirects: RedirectPolicy = .standard,
        cookies: CookieStorage = .inMemory,
        proxy: ProxyConfiguration = .direct,
        allowsCredentialsOverPlainHTTP: Bool = false,
        credentials: [Credential.Origin: Credential] = [:],
        unixSocketPath: String? = nil,
        localBinding: LocalBinding? = nil,
        retryPolicy: RetryPolicy = .none,
        retryBudget: RetryBudget = .standard,
        interceptors: [any RequestInterceptor] = [],
        eventMonitors: [any EventMonitor] = [],
        logging: LoggingOptions = LoggingOptions(),
        maximumHeaderSize: Int = 256 << 10
    ) {
        self.maximumHeaderSize = maximumHeaderSize
        self.retryPolicy = retryPolicy
        self.retryBudget = retryBudget
        self.interceptors = interceptors
        self.eventMonitors = eventMonitors
        self.logging = logging
        self.redirects = redirects
        self.baseURL = baseURL
        self.timeouts = timeouts
        self.defaultHeaders = defaultHeaders
        self.tls = tls
        self.connectionLimits = connectionLimits
        self.httpVersion = httpVersion
        self.maximumBodySize = maximumBodySize
        self.decodesContentEncoding = decodesContentEncoding
        self.receiveBufferSize = receiveBufferSize
        self.logger = logger
        self.cookies = cookies
        self.proxy = proxy
        self.allowsCredentialsOverPlainHTTP = allowsCredentialsOverPlainHTTP
        self.credentials = credentials
        self.unixSocketPath = unixSocketPath
        self.localBinding = localBinding
    }

    /// The default headers: `User-Agent: CurlBridge/<version> libcurl/<version>`.
    public static var standardHeaders: HTTPFields {
        [.userAgent: "CurlBridge/\(CurlBridgeVersion.current) libcurl/\(CurlGlobal.libcurlVersion)"]
    }
}
