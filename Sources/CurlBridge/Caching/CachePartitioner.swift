import Foundation
import HTTPTypes

/// Whose a request's answer is and under which trust it is fetched: the partition of the cache
/// the request may be answered from and its response stored in.
///
/// The partition is a keyed hash (``KeyedHash``, never the secrets themselves) of
/// - every credential curl will send to the origin: the `Authorization`, `Proxy-Authorization`
///   and `Cookie` fields of the request (its ``Credential`` and the configuration's included),
///   a challenged credential's user name, password and schemes, the URL's user info, and the
///   cookies curl adds from the transport's jar for that URL;
/// - the transport's trust for the URL's scheme (``CacheTrust``) and the request's own pins.
///
/// So a stored response is served only to a request that would send exactly the same
/// credentials under exactly the same trust: another user, an anonymous request, a request
/// after a login or a logout, and a pinned request never get it.
struct CachePartitioner: Sendable {
    let keyedHash: KeyedHash
    /// The keyed hashes of the transport's trust (``CacheTrust``) for `http` and `https` URLs,
    /// computed once: they are the same for every request.
    private let plainTrust: [UInt8]
    private let secureTrust: [UInt8]
    /// The transport's cookie jar, when its requests use one.
    let cookies: CookieJar?

    init(keyedHash: KeyedHash, trust: CacheTrust, cookies: CookieJar?) {
        self.keyedHash = keyedHash
        self.cookies = cookies
        plainTrust = keyedHash.digest { hash in trust.plain.forEach { hash.add($0) } }
        secureTrust = keyedHash.digest { hash in trust.secure.forEach { hash.add($0) } }
    }

    /// The cache's view of `prepared`.
    func request(for prepared: PreparedRequest) -> CacheRequest {
        let (url, userInfo) = CacheRequest.key(prepared.url)
        var fields = HTTPFields()
        var credentials: [String] = []
        for line in prepared.headerLines {
            guard let field = Self.field(line) else { continue }
            fields.append(field)
            if Self.credentialNames.contains(field.name) { credentials += [field.name.canonicalName, field.value] }
        }
        var added: [String: String] = [:]
        if let challenge = prepared.authentication {
            credentials += ["challenged", challenge.username, challenge.password, String(challenge.schemes.rawValue)]
            added["authorization"] = "challenged \(challenge.username)"
        }
        if let userInfo {
            credentials += ["user info", String(userInfo)]
            added["authorization"] = "user info"
        }
        var partition: String?
        if let jarCookies = jarCookies(prepared, url: url) {
            credentials += ["jar"] + jarCookies
            if !jarCookies.isEmpty { added["cookie"] = jarCookies.joined(separator: "; ") }
            let trust = url.hasASCIIPrefixIgnoringCase("https:") ? secureTrust : plainTrust
            partition = keyedHash.hex { hash in
                hash.add("partition")
                for field in credentials { hash.add(field) }
                hash.add("trust")
                hash.add(trust)
                for field in prepared.pinning.map(CacheTrust.fields) ?? [] { hash.add(field) }
            }
        }
        return CacheRequest(
            method: prepared.method, url: url, headerFields: fields, policy: prepared.cachePolicy, partition: partition,
            isCredentialed: fields[.authorization] != nil || prepared.authentication != nil || userInfo != nil,
            addedFields: added, keyedHash: keyedHash)
    }

    /// The fields that carry credentials.
    static let credentialNames: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie]

    /// The `name=value` of each cookie curl adds to a request to `url` from the jar, in the order
    /// curl sends them; empty without a jar, `nil` when the jar cannot be read.
    private func jarCookies(_ prepared: PreparedRequest, url: String) -> [String]? {
        guard prepared.usesCookieJar, let cookies else { return [] }
        return try? cookies.cookies(for: url).map { "\($0.name)=\($0.value)" }
    }

    /// A curl header line (`Name: value`, or `Name;` for an empty value) as a field; `nil` for
    /// `Name:` with nothing after it, which only stops curl from adding its own field.
    private static func field(_ line: String) -> HTTPField? {
        guard let separator = line.firstIndex(where: { $0 == ":" || $0 == ";" }),
              let name = HTTPField.Name(String(line[..<separator])) else { return nil }
        let value = line[line.index(after: separator)...].trimmingCharacters(in: .whitespaces)
        if line[separator] == ":" && value.isEmpty { return nil }
        return HTTPField(name: name, value: value)
    }
}
