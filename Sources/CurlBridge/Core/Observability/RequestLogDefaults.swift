import Logging

/// The logging part of ``RequestDefaults``: the transport's logger and options, and the secrets
/// of its configuration that curl's verbose output may mention, computed once per transport. A
/// class: every request reads it, and a copy of it is then one reference, not its every field.
final class RequestLogDefaults: Sendable {
    /// ``Configuration/logger``, used by requests without their own ``Request/logger``.
    let logger: Logger
    /// The logger's handler, held apart so that a request's level is read from it in place:
    /// `Logger.logLevel` copies the handler out of the logger's storage (an access check and an
    /// existential copy, about 180 instructions a read, callgrind). The same handler the logger
    /// holds, so a class-based handler whose level changes later is read as it is then.
    private let handler: any LogHandler
    /// ``Configuration/logging``.
    let options: LoggingOptions
    /// Proxy user names and passwords, the configured credentials' secrets and the values of
    /// sensitive default headers.
    let configuredSecrets: [String]

    init(_ configuration: Configuration) {
        logger = configuration.logger
        handler = configuration.logger.handler
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

    /// The level of `request`'s effective logger: its own ``Request/logger``'s, else the
    /// configuration's.
    func level(of request: Request) -> Logger.Level {
        request.logger?.logLevel ?? handler.logLevel
    }
}
