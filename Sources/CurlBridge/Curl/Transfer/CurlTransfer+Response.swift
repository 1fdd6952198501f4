import HTTPTypes
internal import CCurl

extension CurlTransfer {
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
