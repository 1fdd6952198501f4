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
        (CURLE_SSL_CONNECT_ERROR, .tlsFailure),
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
        (CURLE_SSL_CLIENTCERT, .tlsFailure),
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
