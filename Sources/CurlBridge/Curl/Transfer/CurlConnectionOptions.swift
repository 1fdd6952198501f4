internal import CCurl

/// How a transport's connections are made and how long they are reused: the Unix socket,
/// connection ages and local binding of its ``Configuration``, as easy-handle options.
struct CurlConnectionOptions: Sendable {
    /// `CURLOPT_UNIX_SOCKET_PATH`.
    let unixSocketPath: String?
    /// `CURLOPT_MAXLIFETIME_CONN`, whole seconds.
    let maximumLifetimeSeconds: Int?
    /// `CURLOPT_MAXAGE_CONN`, whole seconds.
    let maximumIdleSeconds: Int?
    /// `CURLOPT_INTERFACE`, `CURLOPT_LOCALPORT` and `CURLOPT_LOCALPORTRANGE`.
    let localBinding: LocalBinding?

    init(_ configuration: Configuration) {
        unixSocketPath = configuration.unixSocketPath
        maximumLifetimeSeconds = configuration.connectionLimits.maximumLifetime.map(Self.wholeSeconds)
        maximumIdleSeconds = configuration.connectionLimits.maximumIdleTime.map(Self.wholeSeconds)
        localBinding = configuration.localBinding
    }

    /// Sets the options on `easy`.
    func apply(to easy: CurlEasyHandle) throws(RequestError) {
        if let unixSocketPath { try easy.set(CURLOPT_UNIX_SOCKET_PATH, unixSocketPath) }
        if let maximumLifetimeSeconds { try easy.set(CURLOPT_MAXLIFETIME_CONN, maximumLifetimeSeconds) }
        if let maximumIdleSeconds { try easy.set(CURLOPT_MAXAGE_CONN, maximumIdleSeconds) }
        if let localBinding {
            try easy.set(CURLOPT_INTERFACE, localBinding.curlInterface)
            if let ports = localBinding.ports {
                try easy.set(CURLOPT_LOCALPORT, ports.lowerBound)
                try easy.set(CURLOPT_LOCALPORTRANGE, ports.count)
            }
        }
    }

    /// `duration` in whole seconds, rounded up, at least 1 (curl's resolution; 0 would mean
    /// "no limit" to `CURLOPT_MAXLIFETIME_CONN`).
    private static func wholeSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }
}
