internal import CCurl

/// A transport's default header lines as the two curl lists a transfer hands to curl — the lines
/// for the server (`CURLOPT_HTTPHEADER`) and those for the proxy only (`CURLOPT_PROXYHEADER`) —
/// built once, when the transport is made, instead of for every request (two allocations a line,
/// and as many frees, on the loop).
///
/// Who reads them: curl, for the transfers of this transport whose header lines are exactly
/// ``lines`` (``matches(_:)``), and nothing else. A request that adds, removes or replaces a line
/// — its own fields, a body, a credential, a redirect that drops a sensitive header, no defaults
/// at all — builds lists of its own. curl only reads a list it is given, so concurrent transfers
/// share these; each easy handle that is given them holds this object until curl is done with
/// them (cleaned up or reset).
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
        let server = try CurlEasyHandle.curlList(of: lines.filter { !CurlEasyHandle.isForProxyOnly($0) })
        do {
            proxy = try CurlEasyHandle.curlList(of: lines.filter(CurlEasyHandle.isForProxyOnly))
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
