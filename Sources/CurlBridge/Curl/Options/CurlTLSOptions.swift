#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CCurl

/// A transport's TLS settings in the form curl takes them, computed once from its
/// ``TLSConfiguration``. What depends on the host (trust anchors and pins) is precomputed per
/// pinned host and looked up for each request by the host curl will connect to.
///
/// curl keys connections and TLS sessions by host name and compares every option set here
/// (CA blob, CA file and directory, pinned keys, client certificate, versions, verification) before
/// reusing one (`Curl_ssl_config_matches`), so a request never rides on a connection that was
/// verified under another host's settings.
struct CurlTLSOptions {
    /// What curl is told for requests to one host.
    struct HostPolicy {
        /// The CAs to trust, in memory; `nil` for curl's default store or ``caFile``.
        let trustedCertificates: CurlBlob?
        /// A CA file given to curl alone, without a CA directory, so that curl parses it once per
        /// transport and caches the store for every later connection (`CURLOPT_CA_CACHE_TIMEOUT`);
        /// `nil` for ``trustedCertificates`` or curl's defaults.
        let caFile: String?
        /// Whether curl's default CA file and directory are switched off, so that only
        /// ``trustedCertificates`` anchor the chain.
        let excludesSystemStore: Bool
        /// Whether the chain and host name are verified.
        let verifiesPeer: Bool
        /// `CURLOPT_PINNEDPUBLICKEY`: the accepted keys, `;`-separated; `nil` for none.
        let pinnedPublicKeys: String?
        /// Whether the trust anchors are pinned certificates: a chain that leads to none of them is
        /// then a pinning mismatch, not an untrusted certificate.
        let pinsCertificates: Bool
    }

    /// The policy of every host without pins.
    private let unpinned: HostPolicy
    /// Pinned hosts by lowercased name.
    private let exactHosts: [String: HostPolicy]
    /// Pinned domains (`*.example.com` as `example.com`), lowercased.
    private let domains: [String: HostPolicy]
    /// The pins of `*`: every host neither named nor under a pinned domain.
    private let anyHost: HostPolicy?
    /// `CURLOPT_SSLVERSION`.
    private let minimumVersion: Int
    /// The client certificate, its type, key and passphrase.
    private let clientCertificate: (blob: CurlBlob, type: String)?
    private let clientKey: CurlBlob?
    private let clientPassphrase: String?
    /// The system bundle and the added CAs of ``TrustRoots/systemAdding(_:)``, open as long as
    /// these options (the transport's engine) live.
    private let inMemoryCAFile: InMemoryCAFile?

    /// The options for `tls`.
    init(_ tls: TLSConfiguration) {
        var trusted: CurlBlob?
        var caFile: String?
        var inMemoryCAFile: InMemoryCAFile?
        let systemBundleFile = tls.systemBundleOverride ?? SystemTrustStore.bundleFile
        switch (tls.trustRoots.certificates, tls.trustRoots.includesSystem) {
        case (nil, _):
            caFile = systemBundleFile
        case (let added?, true):
            var bundle = SystemTrustStore.pem(of: systemBundleFile)
            bundle.append(contentsOf: Array("\n".utf8) + Array(added.pem.utf8))
            // A file curl can cache the parsed store of; a blob it parses for every connection.
            inMemoryCAFile = InMemoryCAFile(contents: bundle)
            caFile = inMemoryCAFile?.path
            trusted = caFile == nil ? CurlBlob(bundle) : nil
        case (let only?, false):
            trusted = CurlBlob(Data(only.pem.utf8))
        }
        self.inMemoryCAFile = inMemoryCAFile
        unpinned = HostPolicy(
            trustedCertificates: trusted, caFile: caFile, excludesSystemStore: !tls.trustRoots.includesSystem,
            verifiesPeer: !tls.disablesCertificateVerification, pinnedPublicKeys: nil, pinsCertificates: false)
        var exactHosts: [String: HostPolicy] = [:]
        var domains: [String: HostPolicy] = [:]
        var anyHost: HostPolicy?
        for (pattern, pinning) in tls.pins {
            let policy = Self.policy(pinning, unpinned: unpinned)
            let name = pattern.comparableHostName
            if name == "*" {
                anyHost = policy
            } else if name.hasPrefix("*.") {
                domains[Self.canonical(String(name.dropFirst(2)))] = policy
            } else {
                exactHosts[Self.canonical(name)] = policy
            }
        }
        self.exactHosts = exactHosts
        self.domains = domains
        self.anyHost = anyHost
        minimumVersion = tls.minimumVersion.curlValue
        if let identity = tls.clientIdentity {
            clientCertificate = (CurlBlob(identity.certificate), identity.format.rawValue)
            clientKey = identity.privateKey.map(CurlBlob.init)
            clientPassphrase = identity.passphrase
        } else {
            clientCertificate = nil
            clientKey = nil
            clientPassphrase = nil
        }
    }

    /// The policy of a host pinned with `pinning`.
    private static func policy(_ pinning: Pinning, unpinned: HostPolicy) -> HostPolicy {
        let keys = pinning.publicKeyHashes.isEmpty ? nil : pinning.publicKeyHashes.joined(separator: ";")
        guard let certificates = pinning.certificates else {
            return HostPolicy(
                trustedCertificates: unpinned.trustedCertificates, caFile: unpinned.caFile,
                excludesSystemStore: unpinned.excludesSystemStore,
                verifiesPeer: unpinned.verifiesPeer, pinnedPublicKeys: keys, pinsCertificates: false)
        }
        // The pinned certificates are the only anchors; curl's OpenSSL backend sets
        // X509_V_FLAG_PARTIAL_CHAIN, so a pinned leaf or intermediate anchors the chain by itself.
        return HostPolicy(
            trustedCertificates: CurlBlob(Data(certificates.pem.utf8)), caFile: nil, excludesSystemStore: true,
            verifiesPeer: true, pinnedPublicKeys: keys, pinsCertificates: true)
    }

    /// A pinned host name as curl will name it when connecting (``host(of:)``): `bücher.example`
    /// becomes `xn--bcher-kva.example`, `0:0::1` becomes `::1`; unchanged if curl cannot parse it.
    private static func canonical(_ name: String) -> String {
        let literal = "https://" + (name.contains(":") ? "[\(name)]" : name) + "/"
        // Foundation converts an international name to ASCII whatever the locale; curl would
        // only in a UTF-8 one.
        let ascii = URL(string: literal)?.absoluteString ?? literal
        return (try? host(of: ascii)).map(\.comparableHostName) ?? name
    }

    /// The policy for requests to `host`: its own pins, else the longest pinned domain it is
    /// under, else the pins of `*`, else none.
    func policy(forHost host: String) -> HostPolicy {
        let name = host.comparableHostName
        if let policy = exactHosts[name] { return policy }
        var rest = Substring(name)
        while !domains.isEmpty, let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if let policy = domains[String(rest)] { return policy }
        }
        return anyHost ?? unpinned
    }

    /// Applies these options to `easy`, for a request to `url`.
    ///
    /// - Returns: The host policy in force, for telling TLS failures apart afterwards.
    /// - Throws: ``RequestError`` if curl refuses an option, or if pins are configured and curl
    ///   cannot find the host in `url`.
    func apply(to easy: CurlEasyHandle, url: String, pinning: Pinning?) throws(RequestError) -> HostPolicy {
        let policy = if let pinning {
            Self.policy(pinning, unpinned: unpinned)
        } else if exactHosts.isEmpty && domains.isEmpty && anyHost == nil {
            unpinned
        } else {
            self.policy(forHost: try Self.host(of: url))
        }
        try easy.set(CURLOPT_SSLVERSION, minimumVersion)
        if let trusted = policy.trustedCertificates {
            try easy.set(CURLOPT_CAINFO_BLOB, retaining: trusted)
        }
        if let caFile = policy.caFile {
            try easy.set(CURLOPT_CAINFO, caFile)
            try easy.set(CURLOPT_CAPATH, pointer: nil)
        }
        if policy.excludesSystemStore {
            try easy.set(CURLOPT_CAINFO, pointer: nil)
            try easy.set(CURLOPT_CAPATH, pointer: nil)
        }
        if !policy.verifiesPeer {
            try easy.set(CURLOPT_SSL_VERIFYPEER, 0)
            try easy.set(CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let keys = policy.pinnedPublicKeys {
            try easy.set(CURLOPT_PINNEDPUBLICKEY, keys)
        }
        if let (certificate, type) = clientCertificate {
            try easy.set(CURLOPT_SSLCERT_BLOB, retaining: certificate)
            try easy.set(CURLOPT_SSLCERTTYPE, type)
            if let clientKey {
                try easy.set(CURLOPT_SSLKEY_BLOB, retaining: clientKey)
                try easy.set(CURLOPT_SSLKEYTYPE, "PEM")
            }
            if let clientPassphrase {
                try easy.set(CURLOPT_KEYPASSWD, clientPassphrase)
            }
        }
        return policy
    }

    /// The host curl will connect to for `url`, parsed by curl's own URL parser with the flags
    /// curl uses for `CURLOPT_URL`, so that no difference between two parsers can let a request
    /// slip past its host's pins (curl decodes the host and normalizes IPv4 forms such as
    /// `0x7f.1` to `127.0.0.1`). An international name comes back in its ASCII (`xn--`) form,
    /// the one curl resolves and verifies; a name it cannot convert is refused rather than
    /// looked up unpinned.
    static func host(of url: String) throws(RequestError) -> String {
        guard let handle = curl_url() else { throw RequestError(.transportFailure, "curl_url returned no handle") }
        defer { curl_url_cleanup(handle) }
        var host: UnsafeMutablePointer<CChar>?
        guard curl_url_set(handle, CURLUPART_URL, url, UInt32(CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK,
              curl_url_get(handle, CURLUPART_HOST, &host, UInt32(CURLU_PUNYCODE)) == CURLUE_OK, let host
        else {
            throw RequestError(.invalidURL, "curl finds no host in \(url.debugDescription) to look its pins up by", url: url)
        }
        defer { curl_free(host) }
        return String(cString: host)
    }
}
