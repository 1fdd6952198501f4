#if canImport(Glibc)
import Glibc
#endif
internal import CCurl

/// Whether the TLS connection a response came on ended with the server's `close_notify`: the only
/// thing that tells a body delimited by the connection's close (no `Content-Length`, not chunked)
/// from one an attacker cut by closing the TCP connection (RFC 9112 §6.3, RFC 8446 §6.1).
///
/// OpenSSL 3 would report such an end as `unexpected eof while reading`, but libcurl 7.88 reads
/// through a BIO of its own that never says its input reached its end (`BIO_CTRL_EOF` answers
/// "still connected"), so OpenSSL calls the close an error of the system's with none in its queue,
/// and curl takes it for the body's end. And by the time curl reports the transfer done, it has
/// closed the connection and `SSL_set_connect_state` has cleared what `SSL_get_shutdown` would
/// have said. So the watch listens to the connection itself: from the head on, it holds a
/// reference to the connection's `SSL` (`CURLINFO_TLS_SSL_PTR`, `SSL_up_ref`) and an info
/// callback of its own on it (curl sets none), which notes a `close_notify` alert read.
///
/// Made only for a TLS response of HTTP/1 whose body ends at the close. Without OpenSSL (a
/// libcurl built on another TLS library) there is no watch, and no such check.
final class TLSCloseNotifyWatch {
    private let ssl: UnsafeMutableRawPointer
    private let library: LibSSL

    /// The `SSL`s watched, and whether each has read a `close_notify`: written by the info
    /// callback, on the transport's loop inside curl; read by the watch, on the same loop.
    private static let watched = PosixLock<[UnsafeMutableRawPointer: Bool]>([:])

    /// A watch on the TLS connection `easy`'s transfer uses now, or `nil` when it has none (plain
    /// http) or its TLS library is not OpenSSL's.
    init?(_ easy: CurlEasyHandle) {
        guard let library = LibSSL.shared else { return nil }
        var pointer: UnsafeMutableRawPointer?
        guard ccurl_easy_getinfo_pointer(easy.raw, CURLINFO_TLS_SSL_PTR, &pointer) == CURLE_OK, let pointer else { return nil }
        let session = pointer.assumingMemoryBound(to: curl_tlssessioninfo.self).pointee
        guard session.backend == CURLSSLBACKEND_OPENSSL, let ssl = session.internals, library.upRef(ssl) == 1 else { return nil }
        self.ssl = ssl
        self.library = library
        Self.watched.withLock { $0[ssl] = false }
        library.setInfoCallback(ssl) { ssl, event, alert in
            // SSL_CB_READ_ALERT (0x4004) with a close_notify: description 0 (RFC 8446 §6).
            guard event & 0x4004 == 0x4004, alert & 0xff == 0, let ssl else { return }
            TLSCloseNotifyWatch.watched.withLock { watched in
                if watched[UnsafeMutableRawPointer(mutating: ssl)] != nil { watched[UnsafeMutableRawPointer(mutating: ssl)] = true }
            }
        }
    }

    deinit {
        library.setInfoCallback(ssl, nil)
        Self.watched.withLock { _ = $0.removeValue(forKey: ssl) }
        library.free(ssl)
    }

    /// Whether the peer's `close_notify` was read.
    var receivedCloseNotify: Bool {
        Self.watched.withLock { $0[ssl] } ?? false
    }
}

/// An OpenSSL info callback: the `SSL`, where it is called from, and a value (for an alert, its
/// level and description).
private typealias SSLInfoCallback = @convention(c) (UnsafeRawPointer?, Int32, Int32) -> Void

/// The three libssl functions a watch needs, from the libssl libcurl loaded into the process.
private struct LibSSL: Sendable {
    let upRef: @convention(c) (UnsafeMutableRawPointer) -> Int32
    let free: @convention(c) (UnsafeMutableRawPointer) -> Void
    let setInfoCallback: @convention(c) (UnsafeMutableRawPointer, SSLInfoCallback?) -> Void

    /// Found once per process; `nil` when libcurl's TLS is not OpenSSL's.
    static let shared: LibSSL? = {
        _ = try? CurlGlobal.ensureInitialized()
        let inProcess = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
        guard let upRef = dlsym(inProcess, "SSL_up_ref"), let free = dlsym(inProcess, "SSL_free"),
              let setInfoCallback = dlsym(inProcess, "SSL_set_info_callback")
        else { return nil }
        return LibSSL(
            upRef: unsafeBitCast(upRef, to: (@convention(c) (UnsafeMutableRawPointer) -> Int32).self),
            free: unsafeBitCast(free, to: (@convention(c) (UnsafeMutableRawPointer) -> Void).self),
            setInfoCallback: unsafeBitCast(
                setInfoCallback, to: (@convention(c) (UnsafeMutableRawPointer, SSLInfoCallback?) -> Void).self))
    }()
}
