import CCurl
@testable import CurlBridge
import Testing

/// Every `CURLcode` the transport can meet, mapped case by case.
@Suite struct CurlErrorMappingTests {
    static let mapping: [(CURLcode, RequestError.Code)] = [
        (CURLE_UNSUPPORTED_PROTOCOL, .unsupportedScheme),
        (CURLE_URL_MALFORMAT, .invalidURL),
        (CURLE_COULDNT_RESOLVE_HOST, .hostNotFound),
        (CURLE_COULDNT_RESOLVE_PROXY, .hostNotFound),
        (CURLE_COULDNT_CONNECT, .connectFailed),
        (CURLE_INTERFACE_FAILED, .connectFailed),
        (CURLE_PROXY, .proxyFailure),
        (CURLE_QUIC_CONNECT_ERROR, .connectFailed),
        (CURLE_SSL_CONNECT_ERROR, .tlsHandshakeFailed),
        (CURLE_SSL_ENGINE_NOTFOUND, .tlsFailure),
        (CURLE_SSL_ENGINE_SETFAILED, .tlsFailure),
        (CURLE_SSL_CERTPROBLEM, .tlsFailure),
        (CURLE_SSL_CIPHER, .tlsFailure),
        (CURLE_PEER_FAILED_VERIFICATION, .tlsFailure),
        (CURLE_SSL_ENGINE_INITFAILED, .tlsFailure),
        (CURLE_SSL_CACERT_BADFILE, .tlsFailure),
        (CURLE_SSL_SHUTDOWN_FAILED, .tlsFailure),
        (CURLE_SSL_CRL_BADFILE, .tlsFailure),
        (CURLE_SSL_ISSUER_ERROR, .tlsFailure),
        (CURLE_SSL_INVALIDCERTSTATUS, .tlsFailure),
        (CURLE_SSL_CLIENTCERT, .clientCertificateRejected),
        (CURLE_USE_SSL_FAILED, .tlsFailure),
        (CURLE_SSL_PINNEDPUBKEYNOTMATCH, .pinningMismatch),
        (CURLE_GOT_NOTHING, .connectionLost),
        (CURLE_SEND_ERROR, .connectionLost),
        (CURLE_RECV_ERROR, .connectionLost),
        (CURLE_PARTIAL_FILE, .responseTruncated),
        (CURLE_WEIRD_SERVER_REPLY, .protocolError),
        (CURLE_HTTP2, .protocolError),
        (CURLE_HTTP2_STREAM, .protocolError),
        (CURLE_HTTP3, .protocolError),
        (CURLE_BAD_CONTENT_ENCODING, .protocolError),
        (CURLE_RANGE_ERROR, .protocolError),
        (CURLE_TOO_MANY_REDIRECTS, .tooManyRedirects),
        (CURLE_HTTP_RETURNED_ERROR, .unacceptableStatus),
        (CURLE_FILESIZE_EXCEEDED, .bodyTooLarge),
        (CURLE_READ_ERROR, .fileIO),
        (CURLE_FILE_COULDNT_READ_FILE, .fileIO),
        (CURLE_ABORTED_BY_CALLBACK, .cancelled),
        (CURLE_OUT_OF_MEMORY, .transportFailure),
        (CURLE_WRITE_ERROR, .transportFailure),
        (CURLE_FAILED_INIT, .transportFailure),
        (CURLE_BAD_FUNCTION_ARGUMENT, .transportFailure),
        (CURLE_UNKNOWN_OPTION, .transportFailure),
        (CURLE_NOT_BUILT_IN, .transportFailure),
        (CURLE_SEND_FAIL_REWIND, .bodyNotRewindable),
        (CURLE_RECURSIVE_API_CALL, .transportFailure),
        (CURLE_UNRECOVERABLE_POLL, .transportFailure),
    ]

    @Test(arguments: mapping)
    func curlCodeMapsToItsRequestErrorCode(curl: CURLcode, expected: RequestError.Code) {
        let error = RequestError(curlResult: curl, errorBuffer: "", connectLimitApplied: false)
        #expect(error.code == expected)
        #expect(error.curlCode == Int(curl.rawValue))
        #expect(error.curlMessage?.isEmpty == false)  // curl_easy_strerror's text when the buffer is empty
    }

    /// Codes curl gives for different things before the connection, while the head is read and
    /// while the body is: about the URL or memory; about the reply (a garbage status line or
    /// HTTP/0.9, a header line over curl's 100 KiB, curl's 300 KiB of headers); about the body (a
    /// decoded bomb outgrowing curl's buffer for a paused consumer, a bad chunk, a reset of the
    /// connection or, over HTTP/2, of the stream).
    @Test(arguments: [
        (CURLE_UNSUPPORTED_PROTOCOL, TransferPhase.connecting, "", RequestError.Code.unsupportedScheme),
        (CURLE_UNSUPPORTED_PROTOCOL, .readingHead, "Received HTTP/0.9 when not allowed", .protocolError),
        (CURLE_OUT_OF_MEMORY, .connecting, "", .transportFailure),
        (CURLE_BAD_FUNCTION_ARGUMENT, .readingHead, "", .protocolError),
        (CURLE_OUT_OF_MEMORY, .readingHead, "", .headersTooLarge),
        (CURLE_OUT_OF_MEMORY, .readingBody, "", .bodyTooLarge),
        (CURLE_RECV_ERROR, .readingHead, "Too large response headers: 307492 > 307200", .headersTooLarge),
        (CURLE_RECV_ERROR, .readingHead, "h2_process_pending_input: nghttp2_session_mem_recv() returned -902:The user callback function failed", .headersTooLarge),
        (CURLE_RECV_ERROR, .readingHead, "h2_process_pending_input: nghttp2_session_mem_recv() returned -905:Too many CONTINUATION frames following a HEADER frame", .headersTooLarge),
        (CURLE_RECV_ERROR, .readingHead, "Recv failure: Connection reset by peer", .connectionLost),
        (CURLE_RECV_ERROR, .readingBody, "Illegal or missing hexadecimal sequence in chunked-encoding", .protocolError),
        (CURLE_RECV_ERROR, .readingBody, "Recv failure: Connection reset by peer", .responseTruncated),
        (CURLE_SEND_ERROR, .readingHead, "Send failure: Connection reset by peer", .connectionLost),
        (CURLE_SEND_ERROR, .readingBody, "Send failure: Connection reset by peer", .responseTruncated),
        (CURLE_SEND_ERROR, .readingBody, "Send failure: Broken pipe", .responseTruncated),
        (CURLE_HTTP2_STREAM, .readingBody, "HTTP/2 stream 1 was not closed cleanly: CANCEL (err 8)", .responseTruncated),
        (CURLE_HTTP2_STREAM, .readingBody, "HTTP/2 stream 3 was not closed cleanly: INTERNAL_ERROR (err 2)", .responseTruncated),
        (CURLE_HTTP2_STREAM, .readingBody, "HTTP/2 stream 1 was not closed cleanly: PROTOCOL_ERROR (err 1)", .protocolError),
        (CURLE_HTTP2_STREAM, .readingBody, "HTTP/2 stream 1 was not closed cleanly: FLOW_CONTROL_ERROR (err 3)", .protocolError),
        (CURLE_HTTP2_STREAM, .readingHead, "HTTP/2 stream 1 was not closed cleanly: INTERNAL_ERROR (err 2)", .protocolError),
    ])
    func codeSaysWhatTheReplyDidInItsPhase(curl: CURLcode, phase: TransferPhase, text: String, expected: RequestError.Code) {
        let error = RequestError(curlResult: curl, errorBuffer: text, connectLimitApplied: false, phase: phase)
        #expect(error.code == expected)
    }

    /// OpenSSL's verify results (`X509_V_ERR_*`) and curl's texts, as libcurl 7.88 reports them.
    static let verification: [(verifyResult: Int, text: String, certificatesPinned: Bool, expected: RequestError.Code)] = [
        (10, "SSL certificate problem: certificate has expired", false, .certificateExpired),
        (9, "SSL certificate problem: certificate is not yet valid", false, .certificateExpired),
        (18, "SSL certificate problem: self-signed certificate", false, .certificateSelfSigned),
        (18, "SSL certificate problem: self-signed certificate", true, .pinningMismatch),
        (20, "SSL certificate problem: unable to get local issuer certificate", false, .certificateUntrusted),
        (20, "SSL certificate problem: unable to get local issuer certificate", true, .pinningMismatch),
        (19, "SSL certificate problem: self-signed certificate in certificate chain", false, .certificateUntrusted),
        (1, "SSL: no alternative certificate subject name matches target host name '127.0.0.1'", false, .hostnameMismatch),
        (1, "SSL: no alternative certificate subject name matches target host name '127.0.0.1'", true, .hostnameMismatch),
        (0, "SSL: certificate subject name 'a' does not match target host name 'b'", false, .hostnameMismatch),
        (62, "SSL certificate problem: hostname mismatch", false, .hostnameMismatch),
        (1, "SSL: couldn't get peer certificate", false, .tlsFailure),
        (7, "SSL certificate problem: certificate signature failure", false, .tlsFailure),
    ]

    @Test(arguments: verification)
    func aFailedVerificationMapsToItsPreciseCode(
        _ verification: (verifyResult: Int, text: String, certificatesPinned: Bool, expected: RequestError.Code)
    ) {
        let tls = CurlTLSContext(verifyResult: verification.verifyResult, pinsCertificates: verification.certificatesPinned)
        let error = RequestError(
            curlResult: CURLE_PEER_FAILED_VERIFICATION, errorBuffer: verification.text, connectLimitApplied: false, tls: tls)
        #expect(error.code == verification.expected)
        #expect(error.curlMessage == verification.text)
    }

    @Test(arguments: [
        (CURLE_RECV_ERROR, "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0", RequestError.Code.clientCertificateRejected),
        (CURLE_RECV_ERROR, "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A000418:SSL routines::tlsv1 alert unknown ca, errno 0", .clientCertificateRejected),
        (CURLE_SSL_CONNECT_ERROR, "OpenSSL/3.0.19: error:0A000412:SSL routines::sslv3 alert bad certificate", .clientCertificateRejected),
        (CURLE_SSL_CONNECT_ERROR, "OpenSSL/3.0.19: error:0A00042E:SSL routines::tlsv1 alert protocol version", .tlsHandshakeFailed),
        (CURLE_RECV_ERROR, "Recv failure: Connection reset by peer", .connectionLost),
    ])
    func aServersAlertAboutTheClientCertificateIsARejection(curl: CURLcode, text: String, expected: RequestError.Code) {
        #expect(RequestError(curlResult: curl, errorBuffer: text, connectLimitApplied: false).code == expected)
    }

    @Test func timeoutIsConnectOnlyWhenTheConnectLimitApplied() {
        #expect(RequestError.Code(curlResult: CURLE_OPERATION_TIMEDOUT, connectLimitApplied: true) == .connectTimedOut)
        #expect(RequestError.Code(curlResult: CURLE_OPERATION_TIMEDOUT, connectLimitApplied: false) == .totalTimedOut)
    }

    @Test func failureAfterARefusedTunnelIsAProxyFailure() {
        #expect(RequestError.Code(curlResult: CURLE_RECV_ERROR, connectLimitApplied: false, proxyTunnelStatus: 407) == .proxyFailure)
        #expect(RequestError.Code(curlResult: CURLE_RECV_ERROR, connectLimitApplied: false, proxyTunnelStatus: 200) == .connectionLost)
        #expect(RequestError.Code(curlResult: CURLE_OK, connectLimitApplied: false, proxyTunnelStatus: 407) != .proxyFailure)
    }

    @Test func errorBufferTextIsKept() {
        let error = RequestError(curlResult: CURLE_COULDNT_CONNECT, errorBuffer: "Failed to connect to x port 1", connectLimitApplied: false)
        #expect(error.curlMessage == "Failed to connect to x port 1")
        #expect(error.description.contains("[curl 7"))
    }

    @Test func codeDescriptionsAreStableShortNames() {
        #expect(RequestError.Code.idleTimedOut.description == "idleTimedOut")
        #expect(RequestError.Code.idleTimedOut.isTimeout)
        #expect(!RequestError.Code.cancelled.isTimeout)
    }
}
