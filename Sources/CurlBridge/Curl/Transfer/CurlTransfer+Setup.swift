internal import CCurl

/// The options a ``CurlTransfer`` sets on its easy handle for one request: URL, method, body
/// size, headers, timeouts, a challenged credential, and the C callbacks, each of which finds the
/// transfer through `CURLOPT_PRIVATE`-style data pointers (``CurlTransfer/context``).
extension CurlTransfer {
    /// URL, method, headers, body and timeouts; the headers from `defaultHeaderLists` when the
    /// request's lines are the transport's defaults (``CurlDefaultHeaderLists/matches(_:)``).
    func configureRequest(bodyLength: Int64??, defaultHeaderLists: CurlDefaultHeaderLists?) throws(RequestError) {
        try easy.set(CURLOPT_URL, request.url)
        try easy.set(CURLOPT_PRIVATE, pointer: context)
        if let connect = request.timeLimits.connectMilliseconds {
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, connect)
        }
        if let total = request.timeLimits.totalMilliseconds {
            try easy.set(CURLOPT_TIMEOUT_MS, total)
        }
        let method = request.method.rawValue
        if let bodyLength {
            try easy.set(CURLOPT_POST, 1)
            // -1: unknown, sent chunked over HTTP/1.1.
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: bodyLength ?? -1)
            if method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, method) }
        } else if case .multipart(let form) = request.body {
            try easy.setMultipartBody(form)
            if method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, method) }
        } else if method == "HEAD" {
            try easy.set(CURLOPT_NOBODY, 1)
        } else if method == "POST" {
            try easy.set(CURLOPT_POST, 1)
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: 0)
        } else if method != "GET" {
            try easy.set(CURLOPT_CUSTOMREQUEST, method)
        }
        if let defaultHeaderLists {
            try easy.setHeaderLines(defaultHeaderLists)
        } else {
            try easy.setHeaderLines(request.headerLines)
        }
        try request.authentication?.apply(to: easy)
    }

    /// The C callbacks; each finds this transfer through ``context``. `sendsBody`: whether curl
    /// reads the body from us; `reportsProgress`: whether curl's progress counters are wanted.
    func installCallbacks(sendsBody: Bool, reportsProgress: Bool) throws(RequestError) {
        try easy.check(ccurl_easy_setopt_write_function(easy.raw, CURLOPT_WRITEFUNCTION) { bytes, size, count, context in
            guard let context else { return 0 }
            return CurlTransfer.with(context) { $0.receiveBody(UnsafeRawBufferPointer(start: bytes, count: size * count)) }
        }, CURLOPT_WRITEFUNCTION)
        try easy.set(CURLOPT_WRITEDATA, pointer: context)
        try easy.check(ccurl_easy_setopt_write_function(easy.raw, CURLOPT_HEADERFUNCTION) { bytes, size, count, context in
            guard let context else { return 0 }
            return CurlTransfer.with(context) { $0.receiveHeaderLine(UnsafeRawBufferPointer(start: bytes, count: size * count)) }
        }, CURLOPT_HEADERFUNCTION)
        try easy.set(CURLOPT_HEADERDATA, pointer: context)
        // A proxy's answer to CONNECT stays out of the header callback: the guard sees the origin's heads only.
        try easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try easy.check(ccurl_easy_setopt_prereq_function(easy.raw) { context, _, _, _, _ in
            guard let context else { return ccurl_prereqfunc_abort }
            return CurlTransfer.from(context).state.mayStartSending() ? ccurl_prereqfunc_ok : ccurl_prereqfunc_abort
        }, CURLOPT_PREREQFUNCTION)
        try easy.set(CURLOPT_PREREQDATA, pointer: context)
        if sendsBody {
            try easy.check(ccurl_easy_setopt_read_function(easy.raw) { bytes, size, count, context in
                guard let context, let bytes else { return ccurl_readfunc_abort }
                return CurlTransfer.from(context).sendBody(into: UnsafeMutableRawBufferPointer(start: bytes, count: size * count))
            }, CURLOPT_READFUNCTION)
            try easy.set(CURLOPT_READDATA, pointer: context)
            try easy.check(ccurl_easy_setopt_seek_function(easy.raw) { context, offset, origin in
                guard let context, origin == SEEK_SET else { return ccurl_seekfunc_fail }
                return CurlTransfer.from(context).rewindBody(to: Int64(offset))
            }, CURLOPT_SEEKFUNCTION)
            try easy.set(CURLOPT_SEEKDATA, pointer: context)
        }
        guard reportsProgress else { return }
        try easy.set(CURLOPT_NOPROGRESS, 0)
        try easy.check(ccurl_easy_setopt_xferinfo_function(easy.raw) { context, downloadTotal, downloaded, uploadTotal, uploaded in
            guard let context else { return 0 }
            CurlTransfer.from(context).reportProgress(
                received: downloaded, expectedToReceive: downloadTotal, sent: uploaded, expectedToSend: uploadTotal)
            return 0
        }, CURLOPT_XFERINFOFUNCTION)
        try easy.set(CURLOPT_XFERINFODATA, pointer: context)
    }
}
