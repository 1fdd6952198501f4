import CCurlFuzz
#if canImport(Glibc)
import Glibc
#endif

/// How libcurl's own URL parser reads a URL, with the flags a transfer uses for `CURLOPT_URL`:
/// the second opinion the targets compare CurlBridge's view of a URL with.
public struct CurlURLView: Equatable, CustomStringConvertible {
    /// The scheme, lowercase.
    public let scheme: String
    /// The host, lowercase, without IPv6 brackets, with its zone (`fe80::1%eth0`) if any.
    public let host: String
    /// The port, the scheme's default when the URL names none.
    public let port: Int

    /// curl's reading of `url`, or `nil` when curl rejects it.
    public init?(_ url: String) {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        let flags = UInt32(CURLU_NON_SUPPORT_SCHEME) | UInt32(CURLU_GUESS_SCHEME)
        guard curl_url_set(handle, CURLUPART_URL, url, flags) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart, _ flags: UInt32 = 0) -> String? {
            var text: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &text, flags) == CURLUE_OK, let text else { return nil }
            defer { curl_free(text) }
            return String(cString: text)
        }
        guard let scheme = part(CURLUPART_SCHEME), let host = part(CURLUPART_HOST),
              let port = part(CURLUPART_PORT, UInt32(CURLU_DEFAULT_PORT)).flatMap({ Int($0) })
        else { return nil }
        self.scheme = scheme.lowercased()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        // An IPv6 zone (`fe80::1%eth0`) is a part of its own for curl, of the host for Foundation.
        let zone = part(CURLUPART_ZONEID).map { "%" + $0 } ?? ""
        self.host = (bare + zone).lowercased()
        self.port = port
    }

    public var description: String { "\(scheme)://\(host):\(port)" }
}

/// Whether two hosts are the same text, or the same IPv4 or IPv6 address however written
/// (`0x7f.1` and `127.0.0.1`, `::0` and `::`).
/// Hosts with an IPv6 zone (`fe80::1%eth0`) count as the same: curl and Foundation escape zones
/// differently, and a zone only picks the interface for a link-local address.
public func sameHost(_ first: String, _ second: String) -> Bool {
    if first == second || (first.contains("%") && second.contains("%")) { return true }
    func canonical(_ host: String) -> [UInt8]? {
        var address = in6_addr()
        let bare = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? host
        guard inet_pton(AF_INET6, bare, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) } + Array(host.dropFirst(bare.count).utf8)
    }
    // An IPv4 address in any inet_aton notation: curl may keep `9` (from `%39`) as a name, which
    // its resolver's inet_aton reads as 0.0.0.9, the address the origin check writes.
    func ipv4(_ host: String) -> UInt32? {
        var address = in_addr()
        guard !host.isEmpty, host.utf8.allSatisfy({ "0123456789abcdefx.".utf8.contains($0) }),
              inet_aton(host, &address) != 0 else { return nil }
        return address.s_addr
    }
    if let one = ipv4(first), let other = ipv4(second) { return one == other }
    guard let one = canonical(first), let other = canonical(second) else { return false }
    return one == other
}
