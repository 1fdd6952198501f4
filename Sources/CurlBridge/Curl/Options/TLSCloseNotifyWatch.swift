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
/// have said. So the watch listens to the connection itself: from the head on, an info callback
/// of its own on the connection's `SSL` (`CURLINFO_TLS_SSL_PTR`; curl sets none) notes a
/// `close_notify` alert read, in a table the watch reads at the end.
///
/// The watch never touches the `SSL` after the head: curl frees it, with the BIO method its BIO
/// calls when destroyed, when it closes the connection — often before the transfer ends. (An
/// earlier watch kept the `SSL` alive with `SSL_up_ref` and freed it last: its BIO was then
/// destroyed through curl's freed BIO method, a jump through freed memory that crashed the
/// process once in a loaded run.) The callback it leaves on an `SSL` kept by curl for later
/// requests only writes the table, and only for an `SSL` a live watch listens to. An `SSL` made
/// at the address of a freed one gets a new generation, so neither watch reads the other's alert.
///
/// Made only for a TLS response of HTTP/1 whose body ends at the close. Without OpenSSL (a
/// libcurl built on another TLS library) there is no watch, and no such check.
final class TLSCloseNotifyWatch {
    /// What the info callback and the watches share, on the transport's loop inside curl (the
    /// callback) and beside it (the watches).
    private struct Table {
        /// The generation of the watch listening to each `SSL`.
        var listening: [UnsafeMutableRawPointer: UInt64] = [:]
        /// Whether each generation's `SSL` has read a `close_notify`.
        var received: [UInt64: Bool] = [:]
        var nextGeneration: UInt64 = 0
    }

    private static let table = PosixLock(Table())
    private let ssl: UnsafeMutableRawPointer
    private let generation: UInt64

    /// A watch on the TLS connection `easy`'s transfer uses now, or `nil` when it has none (plain
    /// http) or its TLS library is not OpenSSL's.
    init?(_ easy: CurlEasyHandle) {
        guard let library = LibSSL.shared else { return nil }
        var pointer: UnsafeMutableRawPointer?
        guard ccurl_easy_getinfo_pointer(easy.raw, CURLINFO_TLS_SSL_PTR, &pointer) == CURLE_OK, let pointer else { return nil }
        let session = pointer.assumingMemoryBound(to: curl_tlssessioninfo.self).pointee
        guard session.backend == CURLSSLBACKEND_OPENSSL, let ssl = session.internals else { return nil }
        self.ssl = ssl
        generation = Self.table.withLock { table in
            table.nextGeneration += 1
            table.listening[ssl] = table.nextGeneration
            table.received[table.nextGeneration] = false
            return table.nextGeneration
        }
        library.setInfoCallback(ssl) { ssl, event, alert in
            // SSL_CB_READ_ALERT (0x4004) with a close_notify: description 0 (RFC 8446 §6).
            guard event & 0x4004 == 0x4004, alert & 0xff == 0, let ssl else { return }
            TLSCloseNotifyWatch.table.withLock { table in
                if let generation = table.listening[UnsafeMutableRawPointer(mutating: ssl)] { table.received[generation] = true }
            }
        }
    }

    deinit {
        Self.table.withLock { table in
            table.received[generation] = nil
            if table.listening[ssl] == generation { table.listening[ssl] = nil }
        }
    }

    /// Whether the peer's `close_notify` was read.
    var receivedCloseNotify: Bool {
        Self.table.withLock { $0.received[generation] } ?? false
    }
}

/// An OpenSSL info callback: the `SSL`, where it is called from, and a value (for an alert, its
/// level and description).
private typealias SSLInfoCallback = @convention(c) (UnsafeRawPointer?, Int32, Int32) -> Void

/// The libssl function a watch needs, from the libssl libcurl loaded into the process.
private struct LibSSL: Sendable {
    let setInfoCallback: @convention(c) (UnsafeMutableRawPointer, SSLInfoCallback?) -> Void

    /// Found once per process; `nil` when libcurl's TLS is not OpenSSL's.
    static let shared: LibSSL? = {
        _ = try? CurlGlobal.ensureInitialized()
        let inProcess = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
        guard let setInfoCallback = dlsym(inProcess, "SSL_set_info_callback") else { return nil }
        return LibSSL(
            setInfoCallback: unsafeBitCast(
                setInfoCallback, to: (@convention(c) (UnsafeMutableRawPointer, SSLInfoCallback?) -> Void).self))
    }()
}
