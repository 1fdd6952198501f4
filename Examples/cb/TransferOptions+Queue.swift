import CurlBridge

extension TransferOptions {
    /// The transport's configuration for `--queue`: ``configuration(for:)`` and what the other
    /// runs put on each request, which a queue journals without its secrets. `-u` becomes the
    /// credential of each URL's origin (``Configuration/credentials``); the `-H` headers and
    /// `--plain-http-credentials` are added to every attempt to those origins by
    /// ``CommandLineHeaders``. So a download that a later run (the same command after a kill)
    /// rejoins from the journal gets them from that run's command line, never from the disk, and
    /// a download the journal holds for another origin gets none of them.
    func queueConfiguration(for urls: [String]) throws(CommandFailure) -> Configuration {
        var configuration = try configuration(for: urls)
        let origins = Set(urls.compactMap(Credential.Origin.init))
        if let credential {
            for origin in origins { configuration.credentials[origin] = credential }
        }
        let headerLines = headers.compactMap(HeaderLine.init)
        if !headerLines.isEmpty || allowsPlainHTTPCredentials {
            configuration.interceptors.append(
                CommandLineHeaders(origins: origins, headers: headerLines, allowsPlainHTTPCredentials: allowsPlainHTTPCredentials))
        }
        return configuration
    }
}
