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
