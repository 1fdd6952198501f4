internal import CCurl

/// A transport's default header lines as the two curl lists a transfer hands to curl — the lines
/// for the server (`CURLOPT_HTTPHEADER`) and those for the proxy only (`CURLOPT_PROXYHEADER`) —
/// built once, when the transport is made, instead of for every request (two allocations a line,
/// and as many frees, on the loop).
///
/// Who reads them: curl, for the transfers of this transport whose header lines are exactly
/// ``lines`` (``matches(_:)``), and nothing else. The rule is equality, whatever made the lines:
/// a request that adds, removes or replaces a line — its own fields, a body, an `Authorization`
/// from its credential, a redirect's filtered headers — builds lists of its own; one whose lines
/// come out equal to the defaults (a challenged credential, which curl answers from other options,
/// on a transport with no default `Authorization`; a hop whose filter removed nothing) shares
/// them, and sends the same bytes either way. The lists
/// hold only the transport's own default lines, so nothing of one request can reach another.
///
/// Built on the thread that makes the transport, then only read, on the transport's loop: all
/// its properties are constants, and curl only reads a list it is given, so concurrent transfers
/// share them. Each easy handle given them holds this object until curl has let go of them.
final class CurlDefaultHeaderLists {
    /// The lines the lists hold, as ``RequestDefaults/lines`` has them.
    let lines: [String]
    /// The lines for the server; `nil` when there are none.
    let server: UnsafeMutablePointer<curl_slist>?
    /// The lines for the proxy only (`Proxy-Authorization`); `nil` when there are none.
    let proxy: UnsafeMutablePointer<curl_slist>?
    /// Whether the lines set `Host` (``CurlTransfer/setsHost(_:)``).
    let setsHost: Bool

    /// The lists for `lines`.
    ///
    /// - Throws: ``RequestError/Code/transportFailure`` when curl cannot build them (each request
    ///   then builds its own, and fails there as it would have).
    init(_ lines: [String]) throws(RequestError) {
        let (forServer, forProxy) = CurlEasyHandle.split(lines)
        let server = try CurlEasyHandle.curlList(of: forServer)
        do {
            proxy = try CurlEasyHandle.curlList(of: forProxy)
        } catch {
            curl_slist_free_all(server)
            throw error
        }
        self.lines = lines
        self.server = server
        setsHost = CurlTransfer.setsHost(lines)
    }

    deinit {
        curl_slist_free_all(server)
        curl_slist_free_all(proxy)
    }

    /// Whether a request's `lines` are exactly the ones these lists hold. Constant time for the
    /// requests that send the defaults unchanged: their array is ``RequestDefaults/lines`` itself.
    func matches(_ lines: [String]) -> Bool {
        lines == self.lines
    }
}
