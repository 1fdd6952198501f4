internal import CCurl

/// Where one transfer's `CURLOPT_DEBUGFUNCTION` goes: the trace log, when the request's logger
/// is at `trace` level, and the `Cookie` lines of the request heads curl sends, when a cache must
/// know whose the response is (``PreparedRequest/reportsSentCookies``): curl picks the jar's
/// cookies itself, when it writes the request.
///
/// Not `Sendable`: called by curl on the transport's queue only, inside `curl_multi_perform`.
final class CurlDebugRecorder {
    private let traceLog: CurlTraceLog?
    private let recordsCookies: Bool
    /// The values of the `Cookie` lines of the last request head sent; `nil` until one is sent.
    private(set) var sentCookieLines: [String]?

    init(traceLog: CurlTraceLog?, recordsCookies: Bool) {
        self.traceLog = traceLog
        self.recordsCookies = recordsCookies
    }

    /// Takes what curl reported.
    func record(_ type: curl_infotype, _ bytes: UnsafeRawBufferPointer) {
        traceLog?.record(type, bytes)
        if recordsCookies, type == CURLINFO_HEADER_OUT {
            sentCookieLines = Self.cookieLines(inRequestHead: bytes)
        }
    }

    /// The values of the `Cookie` lines of a request head as curl logs it (a request line, then
    /// `Name: value` lines, each ending in CRLF), without the spaces and tabs around them. A
    /// `CONNECT` to a proxy is a head too: the last head sent is the request's. Read as bytes:
    /// a cached request's transfer records its head on the loop thread.
    static func cookieLines(inRequestHead bytes: UnsafeRawBufferPointer) -> [String] {
        bytes.split { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
                  ASCIIBytes.equals(UnsafeRawBufferPointer(rebasing: line[..<colon]), "cookie") else { return nil }
            let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            let value = line[(colon + 1)...].drop(while: isBlank)
            let end = value.lastIndex { !isBlank($0) }.map { $0 + 1 } ?? value.startIndex
            return String(decoding: value[..<end], as: UTF8.self)
        }
    }
}

extension CurlEasyHandle {
    /// Turns curl's verbose mode on (`CURLOPT_VERBOSE`) with its output going to `recorder`
    /// (`CURLOPT_DEBUGFUNCTION`), which the handle keeps alive as long as itself.
    func enableDebug(_ recorder: CurlDebugRecorder) throws(RequestError) {
        debugRecorder = recorder
        try check(ccurl_easy_setopt_debug_function(raw) { _, type, data, size, context in
            guard let context, let data else { return 0 }
            Unmanaged<CurlDebugRecorder>.fromOpaque(context).takeUnretainedValue()
                .record(type, UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }, CURLOPT_DEBUGFUNCTION)
        try set(CURLOPT_DEBUGDATA, pointer: Unmanaged.passUnretained(recorder).toOpaque())
        try set(CURLOPT_VERBOSE, 1)
    }
}
