#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One cookie as curl's cookie engine keeps it (the `NSHTTPCookie` of a ``CookieJar``).
///
/// A cookie prints as, and parses from, one line of a Netscape cookie file, the format curl reads
/// and writes (`curl -b`/`-c`), browsers export and `wget` understands:
///
///     #HttpOnly_.example.com  TRUE  /  TRUE  1767225600  session  abc123
///     ^ httpOnly ^ domain      ^ subdomains ^ secure ^ expires ^ name ^ value
///
/// (fields separated by one tab; `#HttpOnly_` only for ``isHTTPOnly`` cookies; a leading `.` on
/// the domain when ``includesSubdomains``; expiry `0` for a session cookie).
public struct Cookie: Sendable, Hashable, CustomStringConvertible {
    /// The cookie's name.
    public var name: String
    /// The cookie's value (may be empty).
    public var value: String
    /// The host (or, with ``includesSubdomains``, the domain) the cookie belongs to, lowercase and
    /// without a leading dot, e.g. `"example.com"` or `"127.0.0.1"`.
    public var domain: String
    /// Whether the cookie is also sent to subdomains of ``domain`` (it was set with a `Domain`
    /// attribute); `false` for a host-only cookie.
    public var includesSubdomains: Bool
    /// The path prefix the cookie is sent for; `"/"` by default.
    public var path: String
    /// Whether the cookie is sent only over HTTPS (and, as curl does, to `localhost`, `127.0.0.1`
    /// and `::1` over plain HTTP).
    public var isSecure: Bool
    /// Whether the server marked the cookie `HttpOnly` (curl sends such cookies like any other).
    public var isHTTPOnly: Bool
    /// When the cookie expires, to the second; `nil` for a session cookie, which lives as long
    /// as the jar.
    public var expires: Date?

    /// Creates a cookie.
    ///
    /// - Parameters:
    ///   - name: The name; must not be empty.
    ///   - value: The value.
    ///   - domain: The host or domain, without a leading dot (one is removed, and then
    ///     `includesSubdomains` is implied).
    ///   - includesSubdomains: Whether subdomains of `domain` receive it too; `false` by default.
    ///   - path: The path prefix; `"/"` by default.
    ///   - isSecure: HTTPS only; `false` by default.
    ///   - isHTTPOnly: The `HttpOnly` mark; `false` by default.
    ///   - expires: The expiry; `nil` (a session cookie) by default.
    public init(
        name: String, value: String, domain: String, includesSubdomains: Bool = false, path: String = "/",
        isSecure: Bool = false, isHTTPOnly: Bool = false, expires: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain.hasPrefix(".") ? String(domain.dropFirst()).lowercased() : domain.lowercased()
        self.includesSubdomains = includesSubdomains || domain.hasPrefix(".")
        self.path = path
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.expires = expires.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
    }

    /// Parses one line of a Netscape cookie file, as curl writes it.
    ///
    /// - Returns: `nil` for a comment, a blank line or a line that is not a cookie (curl skips
    ///   those too).
    public init?(netscapeLine line: Substring) {
        var line = line
        if line.hasSuffix("\r") { line = line.dropLast() }
        let httpOnlyPrefix = "#HttpOnly_"
        let isHTTPOnly = line.hasPrefix(httpOnlyPrefix)
        if isHTTPOnly { line = line.dropFirst(httpOnlyPrefix.count) }
        guard !line.hasPrefix("#") else { return nil }
        var fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        if fields.count == 6 { fields.append("") }  // curl writes an empty value this way too
        // Any path: curl keeps and lists a `Path` as the server wrote it (`account`, `"/a"`), and
        // matches on its sanitised form (``matchingPath``).
        guard fields.count == 7, !fields[0].isEmpty, !fields[5].isEmpty, !fields[2].isEmpty,
              let seconds = Int64(fields[4]), seconds >= 0
        else { return nil }
        self.init(
            name: String(fields[5]), value: String(fields[6]), domain: String(fields[0]),
            includesSubdomains: fields[1].uppercased() == "TRUE", path: String(fields[2]),
            isSecure: fields[3].uppercased() == "TRUE", isHTTPOnly: isHTTPOnly,
            expires: seconds == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// Parses one line of a Netscape cookie file, like the `Substring` form.
    public init?(netscapeLine line: String) {
        self.init(netscapeLine: line[...])
    }

    /// The cookie as one line of a Netscape cookie file, exactly as curl prints it.
    public var netscapeLine: String {
        let fields = [
            (includesSubdomains ? "." : "") + domain,
            includesSubdomains ? "TRUE" : "FALSE",
            path,
            isSecure ? "TRUE" : "FALSE",
            String(expiresSeconds),
            name,
            value,
        ]
        return (isHTTPOnly ? "#HttpOnly_" : "") + fields.joined(separator: "\t")
    }

    /// The expiry as curl keeps it: seconds since 1970, `0` for a session cookie.
    var expiresSeconds: Int64 {
        expires.map { Int64($0.timeIntervalSince1970) } ?? 0
    }

    /// Whether the cookie has expired at `now` (a session cookie never has).
    func hasExpired(at now: Date) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }

    /// Whether `other` is the same cookie slot (name, domain, host-only or not, path): adding one
    /// replaces the other.
    func isSameSlot(as other: Cookie) -> Bool {
        name == other.name && domain == other.domain && includesSubdomains == other.includesSubdomains
            && path == other.path
    }

    /// `name=value; domain; path` and the flags, with the value hidden (cookies are secrets).
    public var description: String {
        var parts = ["\(name)=<\(value.utf8.count) bytes>", "domain=\(includesSubdomains ? "." : "")\(domain)", "path=\(path)"]
        if isSecure { parts.append("secure") }
        if isHTTPOnly { parts.append("httpOnly") }
        if let expires { parts.append("expires=\(Int64(expires.timeIntervalSince1970))") }
        return parts.joined(separator: "; ")
    }

    /// Why curl could not take this cookie, or `nil` when it can.
    var problem: String? {
        let forbidden: (Character) -> Bool = { $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\0" }
        if name.isEmpty { return "a cookie needs a name" }
        if domain.isEmpty { return "cookie \(name.debugDescription) needs a domain" }
        if !path.hasPrefix("/") { return "the path of cookie \(name.debugDescription) must start with /" }
        if name.contains(where: { forbidden($0) || $0 == ";" || $0 == "=" || $0 == " " }) {
            return "cookie name \(name.debugDescription) contains a tab, CR, LF, NUL, space, ; or ="
        }
        if value.contains(where: { forbidden($0) || $0 == ";" }) {
            return "the value of cookie \(name.debugDescription) contains a tab, CR, LF, NUL or ;"
        }
        if (domain + path).contains(where: { forbidden($0) || $0 == " " }) {
            return "the domain or path of cookie \(name.debugDescription) contains a tab, CR, LF, NUL or space"
        }
        return nil
    }
}
