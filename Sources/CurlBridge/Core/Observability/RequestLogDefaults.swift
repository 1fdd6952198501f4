import Logging

/// The logging part of ``RequestDefaults``: the transport's logger and options, and the secrets
/// of its configuration that curl's verbose output may mention, computed once per transport.
struct RequestLogDefaults: Sendable {
    /// ``Configuration/logger``, used by requests without their own ``Request/logger``.
    let logger: Logger
    /// ``Configuration/logging``.
    let options: LoggingOptions
    /// Proxy user names and passwords, the configured credentials' secrets and the values of
    /// sensitive default headers.
    let configuredSecrets: [String]

    init(_ configuration: Configuration) {
        logger = configuration.logger
        options = configuration.logging
        var secrets: [String] = []
        for proxy in [configuration.proxy.httpProxy, configuration.proxy.httpsProxy] {
            if let credentials = proxy?.credentials { secrets += [credentials.user, credentials.password] }
        }
        for credential in configuration.credentials.values { secrets += credential.secrets }
        for field in configuration.defaultHeaders where Request.alwaysSensitiveHeaderNames.contains(field.name) {
            secrets += LogSecrets.inHeaderValue(field.value[...])
        }
        configuredSecrets = secrets
    }

    /// Whether `request`'s effective logger takes ``RequestLog``'s `debug` lines, so that its
    /// attempts are worth following even when nothing else spans them.
    func logsAttempts(of request: Request) -> Bool {
        request.effectiveLogLevel(logger) <= .debug
    }
}
