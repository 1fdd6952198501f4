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
    ///   - tls: What the transfer knew about its TLS session, which tells curl's one verification
    ///     failure apart into precise codes; `nil` when unknown.
    ///   - errorText: curl's error-buffer text, which names an alert the server sent.
    ///   - phase: How far the response had come: curl uses one code for different things before
    ///     and after the connection, and before and after the head (see ``TransferPhase``).
    init(
        curlResult result: CURLcode, connectLimitApplied: Bool, proxyTunnelStatus: Int = 0,
        tls: CurlTLSContext? = nil, errorText: String = "", phase: TransferPhase = .connecting
    ) {
        if result != CURLE_OK, proxyTunnelStatus != 0, !(200...299).contains(proxyTunnelStatus) {
            self = .proxyFailure
            return
        }
        switch result {
        case CURLE_PEER_FAILED_VERIFICATION:
            self = tls.map { Self(verifyResult: $0.verifyResult, pinsCertificates: $0.pinsCertificates, errorText: errorText) } ?? .tlsFailure
        case CURLE_SSL_CONNECT_ERROR:
            self = Self.namesClientCertificateAlert(errorText) ? .clientCertificateRejected : .tlsHandshakeFailed
        case CURLE_SSL_CLIENTCERT:
            self = .clientCertificateRejected
        case CURLE_RECV_ERROR where Self.namesClientCertificateAlert(errorText):
            // TLS 1.3 judges the client's certificate after the client finished its handshake:
            // the refusal arrives as an alert on the first read.
            self = .clientCertificateRejected
        case CURLE_UNSUPPORTED_PROTOCOL:
            // While the head is read: a reply that is not HTTP (a garbage status line, HTTP/0.9).
            self = phase == .readingHead ? .protocolError : .unsupportedScheme
        case CURLE_BAD_FUNCTION_ARGUMENT where phase == .readingHead:
            self = .protocolError  // a header line curl's header API cannot store (no colon before a CR)
        case CURLE_OUT_OF_MEMORY where phase == .readingHead:
            self = .headersTooLarge  // a header line over curl's 100 KiB
        case CURLE_OUT_OF_MEMORY where phase == .readingBody:
            self = .bodyTooLarge  // decoded bytes beyond what curl holds for a paused consumer (a bomb)
        case CURLE_RECV_ERROR where phase == .readingHead && Self.namesOversizedHead(errorText):
            self = .headersTooLarge
        case CURLE_RECV_ERROR where phase == .readingBody && errorText.contains("chunked-encoding"):
            self = .protocolError  // a bad chunk size or chunk framing
        case CURLE_RECV_ERROR where phase == .readingBody, CURLE_SEND_ERROR where phase == .readingBody:
            // The head arrived, the connection broke (a reset) mid-body: over HTTP/2 curl may
            // learn it from a send (a WINDOW_UPDATE), over HTTP/1.1 from a receive.
            self = .responseTruncated
        case CURLE_HTTP2_STREAM where phase == .readingBody && Self.namesStreamAbort(errorText):
            self = .responseTruncated  // the server reset the stream mid-body (CANCEL, INTERNAL_ERROR…)
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
        case CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_USE_SSL_FAILED:
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

extension RequestError.Code {
    /// Whether curl's text for `CURLE_HTTP2_STREAM` names a stream the server reset for a reason
    /// of its own ("HTTP/2 stream 1 was not closed cleanly: CANCEL (err 8)"), not for a protocol
    /// violation (`PROTOCOL_ERROR`, `FLOW_CONTROL_ERROR`, `FRAME_SIZE_ERROR`, `COMPRESSION_ERROR`),
    /// which stays a ``protocolError``.
    static func namesStreamAbort(_ errorText: String) -> Bool {
        let violations = ["PROTOCOL_ERROR", "FLOW_CONTROL_ERROR", "FRAME_SIZE_ERROR", "COMPRESSION_ERROR"]
        return errorText.contains("was not closed cleanly") && !violations.contains { errorText.contains($0) }
    }

    /// The code for a failed certificate verification (`CURLE_PEER_FAILED_VERIFICATION`), from
    /// OpenSSL's verify result (`CURLINFO_SSL_VERIFYRESULT`, an `X509_V_ERR_*` value).
    ///
    /// libcurl 7.88 checks the host name itself, before it records the verify result, which then
    /// still holds its placeholder (1) or OK (0): curl's text ("… target host name …") says so.
    private init(verifyResult: Int, pinsCertificates: Bool, errorText: String) {
        switch verifyResult {
        case 9, 10:  // X509_V_ERR_CERT_NOT_YET_VALID, X509_V_ERR_CERT_HAS_EXPIRED
            self = .certificateExpired
        case 18:  // X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT
            self = pinsCertificates ? .pinningMismatch : .certificateSelfSigned
        case 2, 19, 20, 21, 27:
            // UNABLE_TO_GET_ISSUER_CERT, SELF_SIGNED_CERT_IN_CHAIN, UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            // UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_UNTRUSTED
            self = pinsCertificates ? .pinningMismatch : .certificateUntrusted
        case 62, 64:  // X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH
            self = .hostnameMismatch
        case 0 where errorText.contains("target host name"), 1 where errorText.contains("target host name"):
            self = .hostnameMismatch
        default:
            self = .tlsFailure
        }
    }

    /// Whether curl's text, while a head is read, reports a header section too large for curl:
    /// its own 300 KiB HTTP/1.1 limit (above a raised ``Configuration/maximumHeaderSize``), its
    /// 128 KiB buffer for one HTTP/2 head (nghttp2's header callback failing, -902), or nghttp2's
    /// limit on CONTINUATION frames (a header block that never ends, -905).
    private static func namesOversizedHead(_ text: String) -> Bool {
        text.contains("Too large response headers") || text.contains("returned -902") || text.contains("returned -905")
    }

    /// Whether curl's text reports a TLS alert by which the server refused the client's
    /// certificate (OpenSSL's names of received alerts, e.g. "tlsv13 alert certificate required").
    private static func namesClientCertificateAlert(_ text: String) -> Bool {
        ["alert certificate required", "alert bad certificate", "alert unknown ca", "alert certificate unknown",
         "alert certificate revoked", "alert certificate expired", "alert unsupported certificate"]
            .contains { text.contains($0) }
    }
}

/// What a transfer knew about its TLS session when curl failed.
struct CurlTLSContext {
    /// OpenSSL's certificate verify result (`CURLINFO_SSL_VERIFYRESULT`).
    let verifyResult: Int
    /// Whether the host's trust anchors were its pinned certificates (``Pinning/certificates(_:)``).
    let pinsCertificates: Bool
}

extension RequestError {
    /// The error for a transfer that curl finished with `result`, keeping curl's own texts.
    ///
    /// - Parameters:
    ///   - result: The `CURLcode`.
    ///   - errorBuffer: The contents of the transfer's `CURLOPT_ERRORBUFFER` (may be empty).
    ///   - connectLimitApplied: See ``RequestError/Code/init(curlResult:connectLimitApplied:proxyTunnelStatus:tls:errorText:phase:)``.
    ///   - proxyTunnelStatus: Likewise.
    ///   - tls: Likewise.
    ///   - phase: Likewise.
    init(
        curlResult result: CURLcode, errorBuffer: String, connectLimitApplied: Bool, proxyTunnelStatus: Int = 0,
        tls: CurlTLSContext? = nil, phase: TransferPhase = .connecting
    ) {
        let code = Code(
            curlResult: result, connectLimitApplied: connectLimitApplied, proxyTunnelStatus: proxyTunnelStatus,
            tls: tls, errorText: errorBuffer, phase: phase)
        let summary = String(cString: curl_easy_strerror(result))
        self.init(
            code, errorBuffer.isEmpty ? summary : errorBuffer,
            curlCode: Int(result.rawValue), curlMessage: errorBuffer.isEmpty ? summary : errorBuffer
        )
    }
}
