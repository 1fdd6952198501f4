internal import CCurl

// The one place where libcurl's result codes become CurlBridge error codes.

extension RequestError.Code {
    /// The code for a transfer that curl finished with `result`.
    ///
    /// - Parameters:
    ///   - result: The `CURLcode` the transfer ended with.
    ///   - connectLimitApplied: Whether the connect timeout was the limit in force: curl reports the
    ///     connect and the total timeout with the same `CURLE_OPERATION_TIMEDOUT`, and this tells
    ///     them apart (see ``CurlTransfer``'s use).
    ///   - proxyTunnelStatus: The status of a proxy's answer to `CONNECT`
    ///     (`CURLINFO_HTTP_CONNECTCODE`), 0 if there was none: curl reports a refused tunnel as a
    ///     receive error.
    init(curlResult result: CURLcode, connectLimitApplied: Bool, proxyTunnelStatus: Int = 0) {
        if result != CURLE_OK, proxyTunnelStatus != 0, !(200...299).contains(proxyTunnelStatus) {
            self = .proxyFailure
            return
        }
        switch result {
        case CURLE_UNSUPPORTED_PROTOCOL:
            self = .unsupportedScheme
        case CURLE_URL_MALFORMAT:
            self = .invalidURL
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self = .hostNotFound
        case CURLE_COULDNT_CONNECT, CURLE_INTERFACE_FAILED, CURLE_QUIC_CONNECT_ERROR:
            self = .connectFailed
        case CURLE_PROXY:
            self = .proxyFailure
        case CURLE_OPERATION_TIMEDOUT:
            self = connectLimitApplied ? .connectTimedOut : .totalTimedOut
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_PEER_FAILED_VERIFICATION,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            self = .tlsFailure
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            self = .pinningMismatch
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR:
            self = .connectionLost
        case CURLE_PARTIAL_FILE:
            self = .responseTruncated
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3,
            CURLE_BAD_CONTENT_ENCODING, CURLE_RANGE_ERROR:
            self = .protocolError
        case CURLE_TOO_MANY_REDIRECTS:
            self = .tooManyRedirects
        case CURLE_HTTP_RETURNED_ERROR:
            self = .unacceptableStatus
        case CURLE_FILESIZE_EXCEEDED:
            self = .bodyTooLarge
        case CURLE_READ_ERROR, CURLE_FILE_COULDNT_READ_FILE:
            self = .fileIO
        case CURLE_SEND_FAIL_REWIND:
            self = .bodyNotRewindable
        case CURLE_ABORTED_BY_CALLBACK:
            self = .cancelled
        default:
            self = .transportFailure
        }
    }
}

extension RequestError {
    /// The error for a transfer that curl finished with `result`, keeping curl's own texts.
    ///
    /// - Parameters:
    ///   - result: The `CURLcode`.
    ///   - errorBuffer: The contents of the transfer's `CURLOPT_ERRORBUFFER` (may be empty).
    ///   - connectLimitApplied: See ``RequestError/Code/init(curlResult:connectLimitApplied:proxyTunnelStatus:)``.
    ///   - proxyTunnelStatus: Likewise.
    init(curlResult result: CURLcode, errorBuffer: String, connectLimitApplied: Bool, proxyTunnelStatus: Int = 0) {
        let code = Code(curlResult: result, connectLimitApplied: connectLimitApplied, proxyTunnelStatus: proxyTunnelStatus)
        let summary = String(cString: curl_easy_strerror(result))
        self.init(
            code, errorBuffer.isEmpty ? summary : errorBuffer,
            curlCode: Int(result.rawValue), curlMessage: errorBuffer.isEmpty ? summary : errorBuffer
        )
    }
}
