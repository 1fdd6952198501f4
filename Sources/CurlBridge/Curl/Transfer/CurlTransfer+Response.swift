#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
internal import CCurl

/// How a ``CurlTransfer`` ends: its outcome (curl's result, ``TransferState``'s failure and the
/// close_notify check), its final counts, and what curl knew about the response.
extension CurlTransfer {
    /// How the transfer ended, curl having finished it with `result`.
    func end(with result: CURLcode) -> TransferEnd {
        if let head = state.finished(succeeded: result == CURLE_OK) { _ = deliver(head) }  // a final 401 without a body
        return TransferEnd(
            result: outcome(of: result), finalProgress: finalProgress(),
            failedOnClosingSession: state.failure == nil && failedOnClosingSession(result),
            sentCookieLines: easy.debugRecorder?.sentCookieLines)
    }

    /// The transfer's end when it is ended from outside with `error` (an idle timeout, a failure
    /// of the multi handle).
    func end(failingWith error: RequestError) -> TransferEnd {
        TransferEnd(result: .failure(error), finalProgress: finalProgress())
    }

    /// Before the transfer is taken out of curl unfinished (cancelled, timed out, shut down): its
    /// connection is closed unless another transfer still uses it. curl closes an HTTP/1.1
    /// connection in that case anyway; for HTTP/2, libcurl 7.88 queues the stream's `RST_STREAM`
    /// and writes it only with the connection's next write, so a connection left idle would keep
    /// the server sending for a stream nobody reads. Closing it tells the server at once; on a
    /// connection other transfers still use, their next write carries the reset.
    func abandonConnectionIfUnused() {
        try? easy.set(CURLOPT_FORBID_REUSE, 1)
    }

    /// The final byte counts, when the receiver wants progress.
    func finalProgress() -> TransferProgress? {
        guard receiver.wantsProgress else { return nil }
        var progress = TransferProgress(
            curlReceived: easy.info(offset: CURLINFO_SIZE_DOWNLOAD_T),
            expectedToReceive: easy.info(offset: CURLINFO_CONTENT_LENGTH_DOWNLOAD_T),
            sent: easy.info(offset: CURLINFO_SIZE_UPLOAD_T),
            expectedToSend: easy.info(offset: CURLINFO_CONTENT_LENGTH_UPLOAD_T))
        progress.expectedBytesToSend = progress.expectedBytesToSend ?? bodyReader?.length
        return progress
    }

    /// Nanoseconds from the start to curl's pre-transfer moment (the connection phase over);
    /// `nil` while waiting for a connection or connecting.
    var connectedAfter: UInt64? {
        let microseconds = easy.info(offset: CURLINFO_PRETRANSFER_TIME_T)
        return microseconds > 0 ? UInt64(microseconds) &* 1000 : nil
    }

    /// The outcome of a transfer curl finished with `result`; a response's body is its sink's.
    private func outcome(of result: CURLcode) -> Result<Response, RequestError> {
        if let failure = state.failure { return .failure(failure) }
        if result == CURLE_OK, let closeNotifyWatch, !closeNotifyWatch.receivedCloseNotify {
            return .failure(RequestError(
                .responseTruncated,
                "the TLS connection closed without close_notify before the end of a body that ends at the close: it may be cut"))
        }
        guard result == CURLE_OK else {
            let connected = connectedAfter != nil
            let tls = CurlTLSContext(verifyResult: easy.info(long: CURLINFO_SSL_VERIFYRESULT), pinsCertificates: pinsCertificates)
            var error = RequestError(
                curlResult: result, errorBuffer: easy.errorText, connectLimitApplied: state.connectLimitApplied(connected: connected),
                proxyTunnelStatus: easy.info(long: CURLINFO_HTTP_CONNECTCODE), tls: tls, phase: state.phase(connected: connected))
            // Whether the server had begun to answer: a retry policy re-sends only what it had not.
            error.receivedResponseBytes = easy.info(long: CURLINFO_HEADER_SIZE) > 0
            return .failure(error)
        }
        return .success(Response(
            status: .init(code: easy.info(long: CURLINFO_RESPONSE_CODE)),
            headerBlock: state.headerBlock(),
            body: Data(),
            url: easy.info(string: CURLINFO_EFFECTIVE_URL, reusing: request.url),
            httpVersion: readHTTPVersion(),
            metrics: readMetrics(),
            requestMethod: request.method,
            requestAccept: request.accept))
    }

    /// The HTTP version of the final response.
    func readHTTPVersion() -> HTTPVersion {
        switch easy.info(long: CURLINFO_HTTP_VERSION) {
        case CURL_HTTP_VERSION_1_0: .http1_0
        case CURL_HTTP_VERSION_2_0: .http2
        case CURL_HTTP_VERSION_3: .http3
        default: .http1_1
        }
    }

    /// Whether curl failed this transfer, with `result`, only because the HTTP/2 session it was
    /// queued on was closing, before any byte of a response. libcurl 7.88 sends the requests of
    /// streams a GOAWAY refused again on a new connection, except the one whose transfer finds the
    /// session with no stream left (`should_close_session`): that one fails with CURLE_HTTP2.
    /// Whether it may go again is ``ResendRule``'s to say.
    func failedOnClosingSession(_ result: CURLcode) -> Bool {
        result == CURLE_HTTP2 && easy.info(long: CURLINFO_HEADER_SIZE) == 0
    }

    /// curl's timings, sizes and connection facts for this transfer.
    func readMetrics() -> TransferMetrics {
        TransferMetrics(
            nameLookup: easy.info(duration: CURLINFO_NAMELOOKUP_TIME_T),
            connect: easy.info(duration: CURLINFO_CONNECT_TIME_T),
            tlsHandshake: easy.info(duration: CURLINFO_APPCONNECT_TIME_T),
            preTransfer: easy.info(duration: CURLINFO_PRETRANSFER_TIME_T),
            firstByte: easy.info(duration: CURLINFO_STARTTRANSFER_TIME_T),
            total: easy.info(duration: CURLINFO_TOTAL_TIME_T),
            bytesSent: easy.info(offset: CURLINFO_SIZE_UPLOAD_T),
            bytesReceived: easy.info(offset: CURLINFO_SIZE_DOWNLOAD_T),
            headerBytes: easy.info(long: CURLINFO_HEADER_SIZE),
            reusedConnection: easy.info(long: CURLINFO_NUM_CONNECTS) == 0,
            localPort: easy.info(long: CURLINFO_LOCAL_PORT),
            remoteAddress: easy.info(string: CURLINFO_PRIMARY_IP),
            remotePort: easy.info(long: CURLINFO_PRIMARY_PORT))
    }
}
