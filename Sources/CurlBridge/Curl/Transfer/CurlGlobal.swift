import Glibc
internal import CCurl

/// libcurl's process-wide state, initialised once, lazily and thread-safely (a Swift `static let`
/// runs its initialiser exactly once, under a lock).
enum CurlGlobal {
    /// The result of the one `curl_global_init` call.
    private static let initialization: CURLcode = {
        keepOpenSSLAliveUntilExit()
        return curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// Initialises libcurl on first use.
    ///
    /// - Throws: ``RequestError/Code/transportFailure`` if `curl_global_init` failed.
    static func ensureInitialized() throws(RequestError) {
        let result = initialization
        guard result == CURLE_OK else {
            throw RequestError(curlResult: result, errorBuffer: "curl_global_init failed", connectLimitApplied: false)
        }
    }

    /// Asks OpenSSL, when libcurl uses it, not to register its `atexit` cleanup, before curl
    /// initialises it. That handler (`OPENSSL_cleanup`) frees OpenSSL's global locks and tables
    /// in whichever thread calls `exit()`, while a transport's thread may be inside a TLS call:
    /// a program that exits with TLS transfers in flight then crashed, in about 1 run in 40, on
    /// a NULL lock in `ERR_lib_error_string` (`scripts/exit-storm.sh`). The memory is the
    /// process's to lose at exit anyway. Looked up at run time, so a libcurl built on another
    /// TLS library needs nothing; it cannot help if something else initialised OpenSSL first.
    private static func keepOpenSSLAliveUntilExit() {
        typealias InitCrypto = @convention(c) (UInt64, UnsafeRawPointer?) -> Int32
        let noAtexit: UInt64 = 0x0008_0000  // OPENSSL_INIT_NO_ATEXIT, OpenSSL 1.1.1b and later
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "OPENSSL_init_crypto") else { return }  // RTLD_DEFAULT
        _ = unsafeBitCast(symbol, to: InitCrypto.self)(noAtexit, nil)
    }

    /// The linked libcurl's version, e.g. `"7.88.1"`.
    static let libcurlVersion: String = {
        guard let info = curl_version_info(ccurl_version_now), let version = info.pointee.version else {
            return "unknown"
        }
        return String(cString: version)
    }()

    /// Whether the linked libcurl clears an easy handle's header state when the handle serves
    /// another transfer. Before 8.1.0 it keeps a pointer to the previous transfer's last header
    /// after freeing it (curl pull request 11103): a response whose first header line is a folded
    /// continuation then makes curl unfold it into that freed memory, a use-after-free any server
    /// can cause on a reused handle. Found by the response-head fuzz target.
    static let clearsHeaderStateOnReuse: Bool = {
        guard let info = curl_version_info(ccurl_version_now) else { return false }
        return info.pointee.version_num >= 0x08_01_00
    }()
}
