import NIOConcurrencyHelpers

/// What a ``TestProxy`` was asked to do and what it relayed: one record per proxied request
/// (forwarded `http://` request, `CONNECT` tunnel or SOCKS5 connection), refused ones included.
public struct ProxyRecord: Sendable, Equatable {
    /// How the client used the proxy.
    public enum Kind: String, Sendable {
        /// An `http://` request sent to the proxy whole (absolute-form target), forwarded by it.
        case forward
        /// An HTTP `CONNECT` tunnel.
        case connect
        /// A SOCKS5 `CONNECT`.
        case socks5
    }

    /// How the client used the proxy.
    public var kind: Kind
    /// Whether the client reached the proxy over TLS (the HTTPS proxy listener).
    public var overTLS: Bool
    /// The request line's target for HTTP (`http://host:port/path` or `host:port`); `host:port`
    /// for SOCKS5 (an IPv6 address in brackets).
    public var target: String
    /// For SOCKS5: how the client named the target, `"ipv4"`, `"ipv6"` or `"domain"` (a SOCKS5h
    /// client that let the proxy resolve it); `nil` for HTTP.
    public var socksAddressType: String?
    /// The request headers the proxy received (HTTP only), `[name, value]` in order.
    public var headers: [[String]]
    /// The user name the client authenticated with (HTTP Basic or SOCKS5 username/password).
    public var user: String?
    /// Whether the proxy accepted the client's credentials (always `true` for a proxy that needs none).
    public var accepted: Bool
    /// Bytes relayed from the client to the target (after the proxy's own protocol).
    public var bytesToTarget: Int
    /// Bytes relayed from the target back to the client.
    public var bytesFromTarget: Int

    /// The received header values named `name` (case-insensitive).
    public func header(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }
}

/// The records of one proxy, appended and updated from its event loops.
final class ProxyLog: Sendable {
    private let records = NIOLockedValueBox<[ProxyRecord]>([])

    /// Appends `record` and returns its index, for ``count(toTarget:fromTarget:at:)``.
    func append(_ record: ProxyRecord) -> Int {
        records.withLockedValue { records in
            records.append(record)
            return records.count - 1
        }
    }

    /// Adds relayed byte counts to the record at `index`.
    func count(toTarget: Int = 0, fromTarget: Int = 0, at index: Int) {
        records.withLockedValue { records in
            records[index].bytesToTarget += toTarget
            records[index].bytesFromTarget += fromTarget
        }
    }

    /// A copy of every record so far.
    var all: [ProxyRecord] { records.withLockedValue { $0 } }
}
