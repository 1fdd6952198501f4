#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
internal import CCurl

/// One libcurl easy handle: one transfer's options and state.
///
/// Not `Sendable`: it lives and dies on its transport's queue. It is cleaned up when released,
/// which the loop only lets happen after the handle has left the multi handle, so no curl
/// callback can reach it any more. Between transfers a handle may wait in its loop's
/// ``CurlEasyHandlePool``, reset (``reset()``) — or retired (``retire()``): its curl handle
/// cleaned up, this object and its error buffer kept for the fresh curl handle of the next
/// transfer (``revive()``). Being confined, its curl pointer and lists skip run-time exclusivity
/// checks.
final class CurlEasyHandle {
    /// How many easy handles exist in the process: a leak check for tests and soaks.
    static let liveHandles = Atomic<Int>(0)

    /// The number of easy handles that exist now.
    static var liveCount: Int { liveHandles.load(ordering: .relaxed) }

    /// The `CURL *`. Between ``retire()`` and ``revive()`` it names a cleaned-up handle, and only
    /// the pool holds the object.
    @exclusivity(unchecked) private(set) var raw: UnsafeMutableRawPointer
    /// Whether the curl handle was cleaned up by ``retire()`` and no new one made yet.
    private(set) var isRetired = false
    /// The header list handed to `CURLOPT_HTTPHEADER`; curl does not copy it.
    @exclusivity(unchecked) private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The header list handed to `CURLOPT_PROXYHEADER` (headers for the proxy only).
    @exclusivity(unchecked) private var proxyHeaderList: UnsafeMutablePointer<curl_slist>?
    /// The transport's default lists, when they were handed to curl instead of lists of the
    /// handle's own: held while curl may read them.
    @exclusivity(unchecked) private var defaultHeaderLists: CurlDefaultHeaderLists?
    /// The buffer curl writes its error text into (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The multipart body handed to `CURLOPT_MIMEPOST`, freed after the handle.
    @exclusivity(unchecked) private var mime: OpaquePointer?
    /// Blobs curl reads without a copy of its own (TLS certificates and keys), released after the
    /// handle: one slot per option, so that a transfer's CA blob costs no list of its own.
    @exclusivity(unchecked) private var retainedBlobs = RetainedBlobs()
    /// Where curl's verbose output goes (`CURLOPT_DEBUGDATA`), released after the handle; `nil`
    /// unless the request is traced or reports the cookies sent (see ``enableDebug(_:)``).
    var debugRecorder: CurlDebugRecorder?
    /// Whether the handle is attached to a cookie share (`CURLOPT_SHARE`), which `curl_easy_reset`
    /// does not undo.
    var isSharing = false

    /// Creates an easy handle with its error buffer installed.
    ///
    /// - Throws: ``RequestError/Code/transportFailure`` when curl cannot make one.
    init() throws(RequestError) {
        try CurlGlobal.ensureInitialized()
        raw = try Self.makeCurlHandle()
        errorBuffer = .allocate(capacity: ccurl_error_size)
        installErrorBuffer()
    }

    /// A new `CURL *`, counted in ``liveHandles``.
    private static func makeCurlHandle() throws(RequestError) -> UnsafeMutableRawPointer {
        guard let handle = curl_easy_init() else {
            throw RequestError(.transportFailure, "curl_easy_init returned no handle")
        }
        liveHandles.add(1, ordering: .relaxed)
        return handle
    }

    /// Empties the error buffer and hands it to the curl handle (`CURLOPT_ERRORBUFFER`): a fresh
    /// or reset handle has none.
    private func installErrorBuffer() {
        errorBuffer.initialize(to: 0)
        ccurl_easy_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    /// Releases what curl read without copying: header lists, the multipart body, retained
    /// blobs, the trace log. Only once curl no longer reads them (cleaned up, or reset).
    private func releaseWhatCurlRead() {
        curl_mime_free(mime)
        mime = nil
        curl_slist_free_all(headerList)
        headerList = nil
        curl_slist_free_all(proxyHeaderList)
        proxyHeaderList = nil
        defaultHeaderLists = nil
        retainedBlobs = RetainedBlobs()
        debugRecorder = nil
    }

    deinit {
        if !isRetired { cleanUp() }
        errorBuffer.deallocate()
    }

    /// Cleans up the curl handle (which detaches it from any share), then what curl read.
    private func cleanUp() {
        curl_easy_cleanup(raw)
        Self.liveHandles.subtract(1, ordering: .relaxed)
        releaseWhatCurlRead()
        isSharing = false
    }

    /// Cleans up the curl handle, as when the object is released, but keeps the object and its
    /// error buffer for a fresh curl handle (``revive()``): a transfer that may not reuse a curl
    /// handle (every one on a libcurl before 8.1.0, see ``CurlGlobal/clearsHeaderStateOnReuse``)
    /// still reuses the allocations around it. Nothing of the transfer it served is left: the curl
    /// handle and everything it read are gone, and the error buffer is cleared.
    func retire() {
        guard !isRetired else { return }
        cleanUp()
        errorBuffer.update(repeating: 0, count: Int(ccurl_error_size))
        isRetired = true
    }

    /// Makes a fresh curl handle for a retired object, with its error buffer installed.
    ///
    /// - Throws: ``RequestError/Code/transportFailure`` when curl cannot make one (the object
    ///   stays retired).
    func revive() throws(RequestError) {
        guard isRetired else { return }
        raw = try Self.makeCurlHandle()
        isRetired = false
        installErrorBuffer()
    }

    /// Makes the handle as good as a fresh one for the next transfer, keeping what curl keeps
    /// across `curl_easy_reset`: its TLS session cache (a session is resumed only by a connection
    /// with the same TLS settings, pins included).
    ///
    /// Every option is cleared (`curl_easy_reset`), so no callback or private pointer still leads to
    /// the finished transfer; the cookie engine is switched off and the share detached (the reset
    /// leaves both on, and would leak its list of cookie files: libcurl 7.88 frees it only on
    /// cleanup); header lists, the multipart body, retained blobs and the trace log are released;
    /// the error buffer is cleared and installed again.
    func reset() {
        assert(!isRetired, "a retired easy handle was reset")
        if isSharing {
            _ = ccurl_easy_setopt_pointer(raw, CURLOPT_COOKIEFILE, nil)
            _ = ccurl_easy_setopt_share(raw, nil)
            isSharing = false
        }
        curl_easy_reset(raw)
        releaseWhatCurlRead()
        installErrorBuffer()
    }

    /// Whether curl let go of the handle's receive buffer when its transfer ended, so that the
    /// next transfer may size it (`CURLOPT_BUFFERSIZE`). libcurl 7.88 frees the buffer when a
    /// transfer is done, except when its connection still serves other transfers (HTTP/2
    /// streams): a handle still holding one refuses any new size with `CURLE_BAD_FUNCTION_ARGUMENT`
    /// — asking is how to tell — and is not reused. Call after ``reset()``.
    func hasReleasedReceiveBuffer() -> Bool {
        assert(!isRetired, "a retired easy handle was asked for its receive buffer")
        return ccurl_easy_setopt_long(raw, CURLOPT_BUFFERSIZE, Int(CURL_MAX_WRITE_SIZE)) == CURLE_OK
    }

    /// curl's error text for the last failure of this handle, or `""`.
    var errorText: String { String(cString: errorBuffer) }

    /// Sets an integer option.
    func set(_ option: CURLoption, _ value: Int) throws(RequestError) {
        try check(ccurl_easy_setopt_long(raw, option, value), option)
    }

    /// Sets a large integer option (`curl_off_t`).
    func set(_ option: CURLoption, offset value: Int64) throws(RequestError) {
        try check(ccurl_easy_setopt_off_t(raw, option, curl_off_t(value)), option)
    }

    /// Sets a string option; curl copies the string.
    func set(_ option: CURLoption, _ value: String) throws(RequestError) {
        // `withCString`, not the implicit conversion: that copies the string into a new array.
        try check(value.withCString { ccurl_easy_setopt_string(raw, option, $0) }, option)
    }

    /// Sets a pointer option (callback user data).
    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(RequestError) {
        try check(ccurl_easy_setopt_pointer(raw, option, value), option)
    }

    /// Sets a blob option without copying: the handle keeps `blob` alive as long as itself.
    func set(_ option: CURLoption, retaining blob: CurlBlob) throws(RequestError) {
        var value = curl_blob(data: blob.bytes.baseAddress, len: blob.count, flags: UInt32(CURL_BLOB_NOCOPY))
        try check(ccurl_easy_setopt_blob(raw, option, &value), option)
        retainedBlobs.keep(blob, for: option)
    }

    /// Installs `lines` as the request's headers: `Proxy-Authorization` goes to the proxy only
    /// (`CURLOPT_PROXYHEADER`, sent in a tunnel's `CONNECT` or with a request the proxy forwards,
    /// never to an origin), every other line to the server (`CURLOPT_HTTPHEADER`).
    func setHeaderLines(_ lines: [String]) throws(RequestError) {
        assert(hasNoHeaderLines, "a transfer's header lines are installed once, on a fresh or reset handle")
        let (forServer, forProxy) = Self.split(lines)
        headerList = try install(forServer, as: CURLOPT_HTTPHEADER)
        if !forProxy.isEmpty {
            proxyHeaderList = try install(forProxy, as: CURLOPT_PROXYHEADER)
        }
        try set(CURLOPT_HEADEROPT, ccurl_headeropt_separate)
    }

    /// Installs a transport's default lists as the request's headers, as ``setHeaderLines(_:)``
    /// would their lines, without building lists of the handle's own; the handle holds `lists`
    /// until curl lets go of them (``reset()``, ``retire()`` or its release).
    func setHeaderLines(_ lists: CurlDefaultHeaderLists) throws(RequestError) {
        assert(hasNoHeaderLines, "a transfer's header lines are installed once, on a fresh or reset handle")
        defaultHeaderLists = lists  // held before curl is given them
        try check(ccurl_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, lists.server), CURLOPT_HTTPHEADER)
        if lists.proxy != nil {
            try check(ccurl_easy_setopt_slist(raw, CURLOPT_PROXYHEADER, lists.proxy), CURLOPT_PROXYHEADER)
        }
        try set(CURLOPT_HEADEROPT, ccurl_headeropt_separate)
    }

    /// Whether no header list is installed: the handle is fresh, or reset since its last transfer.
    private var hasNoHeaderLines: Bool {
        headerList == nil && proxyHeaderList == nil && defaultHeaderLists == nil
    }

    /// `lines` split into those for the server and those for the proxy only
    /// (``isForProxyOnly(_:)``), each in order.
    static func split(_ lines: [String]) -> (server: [String], proxy: [String]) {
        let forProxy = lines.filter(isForProxyOnly)
        return (forProxy.isEmpty ? lines : lines.filter { !isForProxyOnly($0) }, forProxy)
    }

    /// Whether a header line (`"Name: value"` or `"Name;"`) is for the proxy only: `Proxy-Authorization`.
    static func isForProxyOnly(_ line: String) -> Bool {
        line.isCurlHeaderLine(named: "proxy-authorization")
    }

    /// Builds a curl list of `lines` and hands it to curl as `option`; the caller keeps it until
    /// curl lets go of it (``releaseWhatCurlRead()``). A list curl refuses is freed.
    private func install(_ lines: [String], as option: CURLoption) throws(RequestError) -> UnsafeMutablePointer<curl_slist>? {
        let built = try Self.curlList(of: lines)
        do {
            try check(ccurl_easy_setopt_slist(raw, option, built), option)
        } catch {
            curl_slist_free_all(built)
            throw error
        }
        return built
    }

    /// A new curl list of `lines`, `nil` when there are none; the caller frees it.
    ///
    /// - Throws: ``RequestError/Code/transportFailure`` when curl cannot allocate it.
    static func curlList(of lines: [String]) throws(RequestError) -> UnsafeMutablePointer<curl_slist>? {
        var built: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let extended = line.withCString({ curl_slist_append(built, $0) }) else {
                curl_slist_free_all(built)
                throw RequestError(.transportFailure, "curl_slist_append failed")
            }
            built = extended
        }
        return built
    }

    /// Turns a failed `curl_easy_setopt` into an error naming the option.
    @inline(__always)
    func check(_ result: CURLcode, _ option: CURLoption) throws(RequestError) {
        // The comparison inline at every option of every request; the error built out of line.
        guard result == CURLE_OK else { throw Self.rejection(result, of: "option \(option.rawValue)") }
    }

    /// Turns a failed curl call into an error naming `what` curl rejected (built only on failure:
    /// this runs for every option of every request).
    func check(_ result: CURLcode, _ what: @autoclosure () -> String) throws(RequestError) {
        guard result == CURLE_OK else { throw Self.rejection(result, of: what()) }
    }

    /// The error for a curl call that failed with `result`, naming `what` curl rejected.
    @inline(never)
    private static func rejection(_ result: CURLcode, of what: String) -> RequestError {
        let text = String(cString: curl_easy_strerror(result))
        return RequestError(.transportFailure, "curl rejected \(what): \(text)", curlCode: Int(result.rawValue), curlMessage: text)
    }

    /// Installs `form` as the body through curl's MIME API (`CURLOPT_MIMEPOST`); file parts are
    /// streamed from disk by curl while sending.
    func setMultipartBody(_ form: MultipartForm) throws(RequestError) {
        guard let mime = curl_mime_init(raw) else {
            throw RequestError(.transportFailure, "curl_mime_init returned no form")
        }
        curl_mime_free(self.mime)
        self.mime = mime
        for part in form.parts {
            guard let handle = curl_mime_addpart(mime) else {
                throw RequestError(.transportFailure, "curl_mime_addpart returned no part")
            }
            try check(curl_mime_name(handle, part.name), "part name \(part.name.debugDescription)")
            switch part.content {
            case .text(let text):
                try check(curl_mime_data(handle, text, text.utf8.count), "part data")
            case .data(let data):
                let result = data.isEmpty
                    ? curl_mime_data(handle, "", 0)
                    : data.withUnsafeBytes { curl_mime_data(handle, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
                try check(result, "part data")
            case .file(let url):
                let result = curl_mime_filedata(handle, url.path)
                guard result == CURLE_OK else {
                    throw RequestError(
                        .fileIO, "multipart file \(url.path.debugDescription) cannot be read",
                        curlCode: Int(result.rawValue), curlMessage: String(cString: curl_easy_strerror(result)))
                }
            }
            if let filename = part.filename {
                try check(curl_mime_filename(handle, filename), "part filename")
            }
            if let contentType = part.contentType {
                try check(curl_mime_type(handle, contentType), "part type")
            }
        }
        try check(ccurl_easy_setopt_pointer(raw, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(mime)), CURLOPT_MIMEPOST)
    }
}

extension CurlEasyHandle {
    /// The blobs a handle keeps alive for curl, by option: setting an option again lets go of the
    /// blob it had.
    private struct RetainedBlobs {
        private var trustedCertificates: CurlBlob?
        private var clientCertificate: CurlBlob?
        private var clientKey: CurlBlob?
        private var proxyTrustedCertificates: CurlBlob?
        /// Any other option's, which none sets today.
        private var others: [CurlBlob] = []

        /// Keeps `blob`, which `option` hands to curl.
        mutating func keep(_ blob: CurlBlob, for option: CURLoption) {
            switch option {
            case CURLOPT_CAINFO_BLOB: trustedCertificates = blob
            case CURLOPT_SSLCERT_BLOB: clientCertificate = blob
            case CURLOPT_SSLKEY_BLOB: clientKey = blob
            case CURLOPT_PROXY_CAINFO_BLOB: proxyTrustedCertificates = blob
            default: others.append(blob)
            }
        }
    }

    /// An integer transfer fact (`CURLINFO_*` of type long); 0 when curl has none.
    func info(long info: CURLINFO) -> Int {
        var value = 0
        return ccurl_easy_getinfo_long(raw, info, &value) == CURLE_OK ? value : 0
    }

    /// A large integer transfer fact (`curl_off_t`); 0 when curl has none.
    func info(offset info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return ccurl_easy_getinfo_off_t(raw, info, &value) == CURLE_OK ? Int64(value) : 0
    }

    /// A string transfer fact; `""` when curl has none.
    func info(string info: CURLINFO) -> String {
        cString(info).map { String(cString: $0) } ?? ""
    }

    /// A string fact; `known` itself when curl's text spells it (no new string is made).
    func info(string info: CURLINFO, reusing known: String) -> String {
        guard let value = cString(info) else { return "" }
        var known = known
        let isKnown = known.withUTF8 { bytes in
            strlen(value) == bytes.count && (bytes.isEmpty || memcmp(value, bytes.baseAddress!, bytes.count) == 0)
        }
        return isKnown ? known : String(cString: value)
    }

    /// A string fact as curl holds it (valid until the handle changes), `nil` when it has none.
    private func cString(_ info: CURLINFO) -> UnsafeMutablePointer<CChar>? {
        var value: UnsafeMutablePointer<CChar>?
        guard ccurl_easy_getinfo_string(raw, info, &value) == CURLE_OK else { return nil }
        return value
    }

    /// A time fact (`*_TIME_T`, microseconds) as a duration.
    func info(duration info: CURLINFO) -> Duration {
        .microseconds(self.info(offset: info))
    }
}
