/// Where a transport's connections start from: a local address or a network interface, and
/// optionally a range of local ports (`CURLOPT_INTERFACE`, `CURLOPT_LOCALPORT`,
/// `CURLOPT_LOCALPORTRANGE`) — for hosts with several addresses or interfaces, or firewalls that
/// expect known source ports.
///
/// ```swift
/// let configuration = Configuration(localBinding: .address("192.0.2.10"))
/// ```
public struct LocalBinding: Sendable, Hashable {
    /// `CURLOPT_INTERFACE`: `host!<address>` or `if!<name>`.
    let curlInterface: String
    /// The local ports to bind, `nil` for any the system picks.
    public var ports: ClosedRange<Int>?

    private init(curlInterface: String, ports: ClosedRange<Int>?) {
        self.curlInterface = curlInterface
        self.ports = ports
    }

    /// Connections start from `address`, a numeric IPv4 or IPv6 address of this host; a
    /// connection that cannot bind it fails with ``RequestError/Code/connectFailed``.
    ///
    /// - Parameters:
    ///   - address: A numeric IPv4 or IPv6 address of this host, such as `"192.0.2.10"`.
    ///   - ports: The local ports to choose from (1...65535), `nil` for any.
    public static func address(_ address: String, ports: ClosedRange<Int>? = nil) -> LocalBinding {
        LocalBinding(curlInterface: "host!" + address, ports: ports)
    }

    /// Connections go out through the network interface `name`, such as `"eth0"` (`SO_BINDTODEVICE`,
    /// which may need privileges).
    ///
    /// - Parameters:
    ///   - name: The interface's name, such as `"eth0"`.
    ///   - ports: The local ports to choose from (1...65535), `nil` for any.
    public static func interface(_ name: String, ports: ClosedRange<Int>? = nil) -> LocalBinding {
        LocalBinding(curlInterface: "if!" + name, ports: ports)
    }
}
