#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// Whose a request's answer is and under which trust it is fetched: the partition of the cache
/// the request may be answered from and its response stored in.
///
/// The partition is a keyed hash (``KeyedHash``, never the secrets themselves) of a
/// ``CacheIdentity``:
/// - every credential curl will send to the origin: the `Authorization` and
///   `Proxy-Authorization` fields of the request (its ``Credential`` and the configuration's
///   included), a challenged credential's user name, password and schemes, the URL's user info;
/// - the cookies it sends: its own `Cookie` fields and those the transport's jar adds for the URL;
/// - the transport's trust for the URL's scheme (``CacheTrust``) and the request's own pins.
///
/// The jar's cookies are a guess when the request is looked up: curl picks them itself, by its
/// own rules, when it writes the request — and a cookie may be set meanwhile. So a transfer
/// reports the `Cookie` lines curl sent, and a response is stored only when they make the
/// partition it was looked up with (``partition(of:sentCookieLines:)``). A wrong guess can then
/// only make a request miss, or get what its guessed partition holds — responses fetched with
/// exactly those cookies sent — never file one user's page where another finds it.
struct CachePartitioner: Sendable {
    let keyedHash: KeyedHash
    /// The keyed hashes of the transport's trust (``CacheTrust``) for `http` and `https` URLs,
    /// computed once: they are the same for every request.
    private let plainTrust: [UInt8]
    private let secureTrust: [UInt8]
    /// The transport's cookie jar, when its requests use one.
    let cookies: (any CookieSource)?

    init(keyedHash: KeyedHash, trust: CacheTrust, cookies: (any CookieSource)?) {
        self.keyedHash = keyedHash
        self.cookies = cookies
        plainTrust = keyedHash.digest { hash in trust.plain.forEach { hash.add($0) } }
        secureTrust = keyedHash.digest { hash in trust.secure.forEach { hash.add($0) } }
    }

    /// Whether curl adds cookies of its own to `prepared`: then the transfer must report the
    /// ones it sent before a response is stored.
    func addsJarCookies(to prepared: PreparedRequest) -> Bool {
        prepared.usesCookieJar && cookies != nil
    }

    /// The cache's view of `prepared`.
    func request(for prepared: PreparedRequest) -> CacheRequest {
        let (url, userInfo) = CacheRequest.key(prepared.url)
        var fields = HTTPFields()
        var identity = CacheIdentity(
            trust: prepared.usesTLS ? secureTrust : plainTrust,
            pins: prepared.pinning.map(CacheTrust.fields) ?? [])
        var ownCookies: [String] = []
        for line in prepared.headerLines {
            guard let field = Self.field(line) else { continue }
            fields.append(field)
            if field.name == .cookie {
                ownCookies.append(field.value)
            } else if field.name == .authorization || field.name == .proxyAuthorization {
                identity.credentials += [field.name.canonicalName, field.value]
                identity.carriesPassword = identity.carriesPassword || field.value.hasASCIIPrefixIgnoringCase("basic ")
            }
        }
        var added: [String: String] = [:]
        if let challenge = prepared.authentication {
            identity.credentials += ["challenged", challenge.username, challenge.password, String(challenge.schemes.rawValue)]
            identity.carriesPassword = true
            added["authorization"] = "challenged \(challenge.username)"
        }
        if let userInfo {
            identity.credentials += ["user info", String(userInfo)]
            identity.carriesPassword = true
            added["authorization"] = "user info"
        }
        var partition: String?
        if let jarCookies = jarCookies(prepared, url: url) {
            identity.cookies = Self.cookiePairs(ownCookies + jarCookies)
            partition = self.partition(identity)
        }
        if !identity.cookies.isEmpty { added["cookie"] = identity.cookies.joined(separator: "; ") }
        return CacheRequest(
            method: prepared.method, url: url, headerFields: fields, policy: prepared.cachePolicy, partition: partition,
            isCredentialed: fields[.authorization] != nil || prepared.authentication != nil || userInfo != nil,
            addedFields: added, keyedHash: keyedHash, identity: identity)
    }

    /// The partition `request` would have had, had it been looked up with the cookies of
    /// `sentCookieLines` — the values of the `Cookie` lines curl sent with it.
    func partition(of request: CacheRequest, sentCookieLines: [String]) -> String {
        var identity = request.identity
        identity.cookies = Self.cookiePairs(sentCookieLines)
        return partition(identity)
    }

    /// Whether a request looked up as `request` was sent as it was looked up: with the cookies of
    /// its partition. A transfer that does not report its cookies (`reportsSentCookies` false:
    /// the jar adds none) was; one that reports them but sent no `Cookie` line was not, for its
    /// partition counted the jar's. Only such a response is anyone's to store or to update with.
    func sentAsLookedUp(_ request: CacheRequest, reportsSentCookies: Bool, sentCookieLines: [String]?) -> Bool {
        guard reportsSentCookies else { return true }
        guard let lines = sentCookieLines else { return false }
        return partition(of: request, sentCookieLines: lines) == request.partition
    }

    private func partition(_ identity: CacheIdentity) -> String {
        keyedHash.hex { hash in
            hash.add("partition")
            for field in identity.credentials { hash.add(field) }
            hash.add("cookies")
            for pair in identity.cookies { hash.add(pair) }
            hash.add("trust")
            hash.add(identity.trust)
            for field in identity.pins { hash.add(field) }
        }
    }

    /// The `name=value` pairs of `Cookie` values, each trimmed, sorted: one user's cookies, in
    /// whatever lines and order curl sent them.
    static func cookiePairs(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ";") }.map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }.sorted()
    }

    /// The `name=value` of each cookie the jar adds to a request to `url`, by the jar's reading of
    /// curl's rules; empty without a jar, `nil` when the jar cannot be read.
    private func jarCookies(_ prepared: PreparedRequest, url: String) -> [String]? {
        guard prepared.usesCookieJar, let cookies else { return [] }
        return try? cookies.cookies(for: url).map { "\($0.name)=\($0.value)" }
    }

    /// A curl header line (`Name: value`, or `Name;` for an empty value) as a field; `nil` for
    /// `Name:` with nothing after it, which only stops curl from adding its own field.
    private static func field(_ line: String) -> HTTPField? {
        guard let separator = line.firstIndex(where: { $0 == ":" || $0 == ";" }),
              let name = HTTPField.Name(String(line[..<separator])) else { return nil }
        let value = line[line.index(after: separator)...].trimmingWhitespace()
        if line[separator] == ":" && value.isEmpty { return nil }
        return HTTPField(name: name, value: value)
    }
}

/// What a partition is a keyed hash of: the credentials, the cookies and the trust of one
/// request. Held in memory only, for as long as the request's exchange with the cache lasts.
struct CacheIdentity: Sendable {
    /// The `Authorization` and `Proxy-Authorization` fields, a challenged credential, user info.
    var credentials: [String] = []
    /// The cookie pairs sent (``CachePartitioner/cookiePairs(_:)``).
    var cookies: [String] = []
    /// The keyed hash of the transport's trust for the URL's scheme.
    var trust: [UInt8] = []
    /// The request's own pins.
    var pins: [String] = []
    /// Whether a credential holds a password a person chose (Basic, a challenged credential, user
    /// info), which a disk cache must not keep even as a keyed hash: its key lies beside it.
    var carriesPassword = false
}
