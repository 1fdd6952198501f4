import Logging

extension Request {
    /// This request with a logger of its own, used instead of the transport's
    /// ``Configuration/logger`` for everything logged about it — attempts at `debug`, curl's
    /// verbose output at `trace` — as AsyncHTTPClient's per-request `logger:` parameter.
    /// Useful to carry a request's context (a trace id) in metadata, or to trace one request
    /// without raising the level of the whole transport.
    ///
    /// ```swift
    /// var logger = Logger(label: "checkout")
    /// logger.logLevel = .trace
    /// logger[metadataKey: "order"] = "\(order.id)"
    /// let response = try await client.send(.post("orders").json(order).logger(logger))
    /// ```
    ///
    /// - Parameter logger: The logger, or `nil` to use the configuration's again.
    public func logger(_ logger: Logger?) -> Request {
        var copy = self
        copy.logger = logger
        return copy
    }

    /// The logger this request logs to: its own ``logger``, else `fallback` (the configuration's).
    func effectiveLogger(_ fallback: Logger) -> Logger {
        logger ?? fallback
    }

    /// What its transfer needs to log curl's verbose output, or `nil` — the common case, costing
    /// one level check — when the effective logger is above `trace`.
    ///
    /// - Parameters:
    ///   - url: The resolved URL, query included.
    ///   - headerLines: The header lines sent, credentials applied.
    ///   - challenge: What curl answers an authentication challenge with, if anything.
    ///   - defaults: The transport's logging defaults.
    ///   - level: The level of the effective logger, when the caller has read it; read here
    ///     otherwise.
    func transferTrace(
        url: String, headerLines: [String], challenge: ChallengeCredential?, defaults: RequestLogDefaults, level: Logger.Level?
    ) -> TransferTrace? {
        guard level ?? defaults.level(of: self) == .trace else { return nil }
        let logger = effectiveLogger(defaults.logger)
        let sensitiveNames = sensitiveHeaderNames.map(\.canonicalName)
        let names = LogRedactor(options: defaults.options, sensitiveHeaderNames: sensitiveNames)
        var secrets = defaults.configuredSecrets
        secrets += credential?.secrets ?? []
        if let challenge { secrets += [challenge.username, challenge.password] }
        secrets += LogSecrets.userInfo(in: url) + LogSecrets.userInfo(in: self.url)
        secrets += names.sensitiveQueryValues(in: url)
        for line in headerLines {
            guard let colon = line.firstIndex(of: ":"),
                  names.sensitiveHeaderNames.contains(LogRedactor.lowercased(line[..<colon].utf8))
            else { continue }
            secrets += LogSecrets.inHeaderValue(line[line.index(after: colon)...])
        }
        let redactor = LogRedactor(
            options: defaults.options, sensitiveHeaderNames: sensitiveNames, secrets: LogSecrets.withDecodedForms(secrets))
        return TransferTrace(logger: logger, redactor: redactor)
    }
}
