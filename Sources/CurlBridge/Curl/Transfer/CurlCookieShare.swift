#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
internal import CCurl

/// The transport's cookie jar inside curl: a share handle (`CURLSH`) holding curl's cookie engine,
/// attached to every easy handle of the transport that uses cookies.
///
/// How it works
/// ------------
/// Transfers attach the share (`CURLOPT_SHARE`) and switch the engine on (`CURLOPT_COOKIEFILE ""`),
/// so a `Set-Cookie` received by one transfer is sent by the next, with curl's own domain, path,
/// expiry and public-suffix rules (libcurl links libpsl). The jar is inspected and changed through
/// a short-lived easy handle attached to the same share (`CURLINFO_COOKIELIST`,
/// `CURLOPT_COOKIELIST`), on the calling thread:
///
///     lock(cookies)            our recursive mutex; curl takes it too around each cookie access
///         list / clear / add   through the short-lived handle
///     unlock(cookies)
///
/// The share has lock callbacks (one recursive mutex per kind of shared data) rather than being
/// confined to the loop's owner, so the jar can be read and changed synchronously from any thread
/// — a worker, a task, a callback running on the transport's queue, or a blocking caller that is
/// driving the loop itself — without a round trip through the loop and with no way to deadlock
/// on it. curl holds the cookie lock only while it parses a `Set-Cookie` or builds a `Cookie`
/// header, never across I/O or a callback of ours, so transfers wait on it for microseconds.
///
/// `deinit` runs when no easy handle can be attached any more: the loop and every jar operation
/// hold a reference while they have one.
///
/// `Sendable` with no check of its own: its two pointers are ``CurlPointer``s, and curl reaches
/// the share, from any thread, only under the mutexes they point to.
final class CurlCookieShare: Sendable {
    /// The `CURLSH *`.
    private let shareHandle: CurlPointer<UnsafeMutableRawPointer>
    /// One recursive mutex per `curl_lock_data` value, handed to curl's lock callbacks.
    private let mutexArray: CurlPointer<UnsafeMutablePointer<pthread_mutex_t>>
    /// How many mutexes there are.
    private static let mutexCount = Int(CURL_LOCK_DATA_LAST.rawValue)

    /// Creates a share that holds cookies.
    ///
    /// - Throws: ``RequestError/Code/transportFailure`` when curl cannot make or set it up.
    init() throws(RequestError) {
        try CurlGlobal.ensureInitialized()
        guard let share = curl_share_init() else {
            throw RequestError(.transportFailure, "curl_share_init returned no handle")
        }
        shareHandle = CurlPointer(share)
        let mutexes = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: Self.mutexCount)
        mutexArray = CurlPointer(mutexes)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        for index in 0..<Self.mutexCount {
            pthread_mutex_init(mutexes + index, &attributes)
        }
        pthread_mutexattr_destroy(&attributes)
        let installed = ccurl_share_setopt_lock_functions(
            share,
            { _, data, _, mutexes in
                guard let mutexes else { return }
                pthread_mutex_lock(mutexes.assumingMemoryBound(to: pthread_mutex_t.self) + Int(data.rawValue))
            },
            { _, data, mutexes in
                guard let mutexes else { return }
                pthread_mutex_unlock(mutexes.assumingMemoryBound(to: pthread_mutex_t.self) + Int(data.rawValue))
            },
            UnsafeMutableRawPointer(mutexes))
        let shared = installed == CURLSHE_OK
            ? ccurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue)) : installed
        guard shared == CURLSHE_OK else {
            let error = RequestError(
                .transportFailure, "curl refused the cookie share: \(String(cString: curl_share_strerror(shared)))")
            curl_share_cleanup(share)
            Self.destroy(mutexes)
            throw error
        }
    }

    /// The `CURLSH *`.
    private var share: UnsafeMutableRawPointer { shareHandle.raw }
    /// The first of the mutexes.
    private var mutexes: UnsafeMutablePointer<pthread_mutex_t> { mutexArray.raw }

    deinit {
        // Should an easy handle still be attached (none can be: see the type's comment), curl keeps
        // the share and may still call the lock callbacks, so the mutexes must outlive it.
        if curl_share_cleanup(share) == CURLSHE_OK {
            Self.destroy(mutexes)
        }
    }

    private static func destroy(_ mutexes: UnsafeMutablePointer<pthread_mutex_t>) {
        for index in 0..<mutexCount {
            pthread_mutex_destroy(mutexes + index)
        }
        mutexes.deallocate()
    }

    /// Makes `easy` read and write this jar: the share, and the cookie engine switched on without
    /// reading a file.
    func attach(to easy: CurlEasyHandle) throws(RequestError) {
        try easy.check(ccurl_easy_setopt_share(easy.raw, share), CURLOPT_SHARE)
        easy.isSharing = true
        try easy.set(CURLOPT_COOKIEFILE, "")
    }

    /// Runs `body` with the jar locked against every transfer and other caller, on a handle
    /// attached to the jar: a read-modify-write in `body` is atomic.
    func withLockedJar<T>(_ body: (CurlCookieList) throws(RequestError) -> T) throws(RequestError) -> T {
        let easy = try CurlEasyHandle()
        try easy.check(ccurl_easy_setopt_share(easy.raw, share), CURLOPT_SHARE)
        // The handle is cleaned up (which takes the share's own lock) after the cookie lock is
        // released: no thread ever waits for the share lock while holding the cookie lock.
        defer { withExtendedLifetime(easy) {} }
        let cookieMutex = mutexes + Int(CURL_LOCK_DATA_COOKIE.rawValue)
        pthread_mutex_lock(cookieMutex)
        defer { pthread_mutex_unlock(cookieMutex) }
        return try body(CurlCookieList(easy: easy))
    }
}

/// The jar seen through one easy handle attached to the share; only valid inside
/// ``CurlCookieShare/withLockedJar(_:)``.
struct CurlCookieList {
    let easy: CurlEasyHandle

    /// Every cookie in the jar as curl prints it: Netscape cookie-file lines.
    func lines() throws(RequestError) -> [String] {
        var list: UnsafeMutablePointer<curl_slist>?
        try easy.check(ccurl_easy_getinfo_slist(easy.raw, CURLINFO_COOKIELIST, &list), "CURLINFO_COOKIELIST")
        defer { curl_slist_free_all(list) }
        var lines: [String] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data { lines.append(String(cString: data)) }
            node = current.pointee.next
        }
        return lines
    }

    /// Empties the jar.
    func removeAll() throws(RequestError) {
        try easy.set(CURLOPT_COOKIELIST, "ALL")
    }

    /// Adds one Netscape cookie-file line (curl silently skips a line it does not accept).
    func add(line: String) throws(RequestError) {
        try easy.set(CURLOPT_COOKIELIST, line)
    }
}
