internal import CCurl

/// libcurl's process-wide state, initialised once, lazily and thread-safely (a Swift `static let`
/// runs its initialiser exactly once, under a lock).
enum CurlGlobal {
    /// The result of the one `curl_global_init` call.
    private static let initialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Initialises libcurl on first use.
    ///
    /// - Throws: ``RequestError/Code/transportFailure`` if `curl_global_init` failed.
    static func ensureInitialized() throws(RequestError) {
        let result = initialization
        guard result == CURLE_OK else {
            throw RequestError(curlResult: result, errorBuffer: "curl_global_init failed", connectLimitApplied: false)
        }
    }

    /// The linked libcurl's version, e.g. `"7.88.1"`.
    static let libcurlVersion: String = {
        guard let info = curl_version_info(ccurl_version_now), let version = info.pointee.version else {
            return "unknown"
        }
        return String(cString: version)
    }()
}
