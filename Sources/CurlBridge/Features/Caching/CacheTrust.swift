#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The trust a transport's responses are fetched under, as the fields a cache partition hashes:
/// for every URL the proxies, the Unix socket and the local binding it goes through; for `https`
/// URLs also the whole TLS configuration — whether certificates are verified, the trust roots,
/// every pin, the client certificate and the lowest TLS version.
///
/// A stored response answers only a request under exactly the same trust, so that one fetched
/// with verification off, another CA set or without a pin never answers a request that demands
/// more. (Two transports that differ in any of these share no stored responses: the price of a
/// rule that cannot be got wrong.) No secret is among them: a proxy is its address and user, a
/// client identity its certificate (with PKCS#12, the archive, which holds the key encrypted).
struct CacheTrust: Sendable {
    /// The fields for `http` URLs.
    let plain: [String]
    /// The fields for `https` URLs.
    let secure: [String]

    init(_ configuration: Configuration) {
        var route = ["proxy"] + Self.fields(configuration.proxy.httpProxy) + Self.fields(configuration.proxy.httpsProxy)
        route += ["bypass"] + configuration.proxy.bypassedHosts
        route += ["unix-socket", configuration.unixSocketPath ?? "-"]
        route += ["binding", configuration.localBinding.map { "\($0.curlInterface) \($0.ports.map { "\($0)" } ?? "-")" } ?? "-"]
        plain = route
        secure = route + Self.fields(configuration.tls)
    }

    private static func fields(_ proxy: ProxyServer?) -> [String] {
        guard let proxy else { return ["none"] }
        // Who the proxy serves, not the password it is proved with: no secret is needed here.
        return [proxy.kind.scheme, proxy.host, String(proxy.port), proxy.credentials?.user ?? "-", proxy.trustedCertificates?.pem ?? "-"]
    }

    private static func fields(_ tls: TLSConfiguration) -> [String] {
        var fields = [
            "tls", tls.disablesCertificateVerification ? "unverified" : "verified",
            tls.trustRoots.includesSystem ? "system \(tls.systemBundleOverride ?? "default")" : "own",
            tls.trustRoots.certificates?.pem ?? "-", "minimum \(tls.minimumVersion)",
        ]
        fields += Self.fields(tls.clientIdentity)
        for (pattern, pinning) in tls.pins.sorted(by: { $0.key < $1.key }) {
            fields += ["pin", pattern] + Self.fields(pinning)
        }
        return fields
    }

    private static func fields(_ identity: ClientIdentity?) -> [String] {
        guard let identity else { return ["no client identity"] }
        // The certificate says who the client is; its key and passphrase are secrets that add nothing.
        return [identity.format.rawValue, identity.certificate.base64EncodedString()]
    }

    /// The fields of one pinning (a transport's or a request's own).
    static func fields(_ pinning: Pinning) -> [String] {
        pinning.publicKeyHashes + [pinning.certificates?.pem ?? "-"]
    }
}
