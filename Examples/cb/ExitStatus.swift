import CurlBridge

/// How `cb` ends: curl's exit code wherever curl has one for the same failure, so scripts written
/// for curl keep working.
enum ExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    case failure = 1
    case hostNotFound = 6
    case connectFailed = 7
    case partialTransfer = 18
    case httpError = 22
    case fileError = 23
    case timeout = 28
    case tlsFailure = 35
    case tooManyRedirects = 47
    case networkFailure = 56
    case certificateRejected = 60
    case tooLarge = 63
    case usage = 64
    case pinMismatch = 90
    case interrupted = 130

    /// The status for a failed request.
    init(_ error: RequestError) {
        switch error.code {
        case .invalidURL, .unsupportedScheme, .invalidMethod, .invalidHeader, .encodingFailed, .credentialsOverPlainHTTP:
            self = .usage
        case .hostNotFound: self = .hostNotFound
        case .connectFailed: self = .connectFailed
        case .responseTruncated: self = .partialTransfer
        case .unacceptableStatus: self = .httpError
        case .fileIO, .destinationExists, .integrityMismatch, .bodySourceFailed: self = .fileError
        case .connectTimedOut, .idleTimedOut, .totalTimedOut: self = .timeout
        case .tlsFailure, .tlsHandshakeFailed, .clientCertificateRejected: self = .tlsFailure
        case .tooManyRedirects, .insecureRedirect: self = .tooManyRedirects
        case .connectionLost, .protocolError, .proxyFailure, .headersTooLarge: self = .networkFailure
        case .certificateUntrusted, .certificateSelfSigned, .certificateExpired, .hostnameMismatch:
            self = .certificateRejected
        case .bodyTooLarge: self = .tooLarge
        case .pinningMismatch: self = .pinMismatch
        case .cancelled: self = .interrupted
        default: self = .failure
        }
    }

    /// One line of the help's table.
    var meaning: String {
        switch self {
        case .success: "success (an HTTP error status too, unless --fail)"
        case .failure: "any other failure"
        case .hostNotFound: "the host name could not be resolved"
        case .connectFailed: "the connection was refused or the host unreachable"
        case .partialTransfer: "the server closed before sending the whole body (resume with --resume)"
        case .httpError: "HTTP status of 400 or more with --fail, or with -o (never saved)"
        case .fileError: "a local file could not be read or written"
        case .timeout: "a timeout: --connect-timeout, --max-time or an idle connection"
        case .tlsFailure: "TLS failed: handshake, protocol version, client certificate"
        case .tooManyRedirects: "more redirects than --max-redirs, or an unsafe one (https to http)"
        case .networkFailure: "the connection broke, or the server broke HTTP"
        case .certificateRejected: "the server's certificate is untrusted, expired or for another host"
        case .tooLarge: "the response is larger than the in-memory limit (use -o)"
        case .usage: "a usage error: bad options, URL or header"
        case .pinMismatch: "the server's key does not match --pin"
        case .interrupted: "interrupted (Ctrl-C); a download keeps its partial file for --resume"
        }
    }

    /// The exit-code table printed at the end of `cb --help`.
    static var helpTable: String {
        allCases.map { status in
            let code = String(status.rawValue)
            return String(repeating: " ", count: 5 - code.count) + code + "  " + status.meaning
        }.joined(separator: "\n")
    }
}
