#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// A transport's cookies: what its servers set and its requests send, held by curl's cookie
/// engine. Replaces `NSHTTPCookieStorage` (and AFNetworking's use of it).
///
/// ```swift
/// let transport = Transport(configuration: .init(cookies: .persistent(file: cookiesURL)))
/// let jar = transport.cookies!
/// try jar.add(Cookie(name: "consent", value: "yes", domain: "example.com"))
/// let sent = try jar.cookies(for: "https://example.com/account")   // what a request there sends
/// try jar.delete(name: "session", domain: "example.com")
/// try jar.save()                                                    // to the configured file
/// ```
///
/// Every method is synchronous and safe from any thread, task or callback, including the
/// transport's own queue: it never waits for the network or for the transport's loop, only for
/// curl's cookie lock (held for microseconds while a transfer reads or stores cookies), and for
/// the file when it saves or loads. Changes apply to requests that start afterwards.
///
/// curl's rules apply: a cookie for a public suffix (`Domain=com`, `Domain=co.uk`) or for another
/// domain is refused when a server sets it; `127.0.0.1` and `localhost` are different hosts.
public struct CookieJar: Sendable, CookieSource {
    /// curl's jar.
    private let share: CurlCookieShare
    /// The storage the transport was configured with.
    private let storage: CookieStorage
    /// Where failures to load or save the configured file are reported.
    private let logger: Logger

    init(share: CurlCookieShare, storage: CookieStorage, logger: Logger) {
        self.share = share
        self.storage = storage
        self.logger = logger
    }

    /// Every unexpired cookie in the jar, in no particular order.
    ///
    /// - Throws: ``RequestError/Code/transportFailure`` if curl cannot list them.
    public func cookies() throws(RequestError) -> [Cookie] {
        try share.withLockedJar { (jar) throws(RequestError) in try Self.unexpired(jar) }
    }

    /// The cookies a request to `url` sends now: domain, path, `Secure` and expiry matched as
    /// curl matches them, in curl's order (longest path first, then longest domain, then longest
    /// name; curl breaks remaining ties by age, which the jar does not expose).
    ///
    /// - Throws: ``RequestError/Code/invalidURL`` if `url` is not an absolute http or https URL.
    public func cookies(for url: String) throws(RequestError) -> [Cookie] {
        guard let components = URLComponents(string: url), components.host?.isEmpty == false,
              ["http", "https"].contains(components.scheme?.lowercased())
        else {
            throw RequestError(.invalidURL, "\(url.debugDescription) is not an absolute http or https URL", url: url)
        }
        let now = Date()
        return try cookies().filter { $0.matches(components, at: now) }.sorted {
            ($0.path.utf8.count, $0.domain.utf8.count, $0.name.utf8.count) > ($1.path.utf8.count, $1.domain.utf8.count, $1.name.utf8.count)
        }
    }

    /// Adds `cookie`, replacing the cookie with the same name, domain, host-only flag and path;
    /// an expired `cookie` only removes that one.
    ///
    /// - Throws: ``RequestError/Code/invalidCookie`` if a field contains what a cookie cannot
    ///   (tab, CR, LF, `;` in the value…), or curl refuses it (a `__Host-` cookie that is not
    ///   secure, host-only and on `/`, a `__Secure-` cookie that is not secure).
    public func add(_ cookie: Cookie) throws(RequestError) {
        try add([cookie])
    }

    /// Adds `cookies`; see ``add(_:)-(Cookie)``. Nothing is added if one is invalid.
    public func add(_ cookies: [Cookie]) throws(RequestError) {
        if let problem = cookies.lazy.compactMap(\.problem).first {
            throw RequestError(.invalidCookie, problem)
        }
        // The last of several cookies for one slot wins; an expired one only removes its slot.
        let now = Date()
        let added = cookies.enumerated().filter { index, cookie in
            !cookies[(index + 1)...].contains { $0.isSameSlot(as: cookie) }
        }.map(\.element)
        try share.withLockedJar { (jar) throws(RequestError) in
            let before = try Self.unexpired(jar)
            let kept = before.filter { old in !added.contains { $0.isSameSlot(as: old) } }
            try Self.replaceContents(of: jar, with: kept + added.filter { !$0.hasExpired(at: now) })
            let present = try Self.unexpired(jar)
            if let refused = added.first(where: { !$0.hasExpired(at: now) && !present.contains($0) }) {
                try Self.replaceContents(of: jar, with: before)
                throw RequestError(.invalidCookie, "curl refused cookie \(refused)")
            }
        }
    }

    /// Deletes the cookies called `name` for `domain` (host-only or not), on `path` or, when
    /// `path` is `nil`, on any path.
    ///
    /// - Returns: How many cookies were deleted.
    @discardableResult
    public func delete(name: String, domain: String, path: String? = nil) throws(RequestError) -> Int {
        let domain = domain.hasPrefix(".") ? String(domain.dropFirst()).lowercased() : domain.lowercased()
        return try deleteCookies { $0.name == name && $0.domain == domain && (path == nil || $0.path == path) }
    }

    /// Deletes every cookie for which `shouldDelete` is `true`.
    ///
    /// - Returns: How many cookies were deleted.
    @discardableResult
    public func deleteCookies(where shouldDelete: (Cookie) -> Bool) throws(RequestError) -> Int {
        try share.withLockedJar { (jar) throws(RequestError) in
            let all = try Self.unexpired(jar)
            let kept = all.filter { !shouldDelete($0) }
            guard kept.count < all.count else { return 0 }
            try Self.replaceContents(of: jar, with: kept)
            return all.count - kept.count
        }
    }

    /// Empties the jar.
    public func deleteAll() throws(RequestError) {
        try share.withLockedJar { (jar) throws(RequestError) in try jar.removeAll() }
    }

    /// Writes every unexpired cookie to `file` in Netscape format, replacing the file atomically
    /// (owner-only permissions).
    ///
    /// - Throws: ``RequestError/Code/fileIO`` when the file cannot be written.
    public func save(to file: URL) throws(RequestError) {
        try CookieFile.write(cookies(), to: file)
    }

    /// Writes the jar to the file of a ``CookieStorage/persistent(file:)`` configuration.
    ///
    /// - Throws: ``RequestError/Code/fileIO`` when the file cannot be written, or there is no
    ///   configured file.
    public func save() throws(RequestError) {
        guard let file = storage.file else {
            throw RequestError(.fileIO, "the transport's cookie storage has no file; use save(to:)")
        }
        try save(to: file)
    }

    /// Adds the cookies of the Netscape cookie file `file` (as written by curl, a browser export
    /// or ``save(to:)``), replacing cookies in the same slots. A missing file adds nothing; lines
    /// that are not cookies are skipped, as curl skips them.
    ///
    /// - Throws: ``RequestError/Code/fileIO`` when the file exists but cannot be read,
    ///   ``RequestError/Code/invalidCookie`` when curl refuses one of its cookies.
    public func load(from file: URL) throws(RequestError) {
        try add(CookieFile.read(file))
    }

    // MARK: The configured file

    /// Loads the configured file, if any, logging a failure (the transport starts anyway).
    func loadConfiguredFile() {
        guard let file = storage.file else { return }
        do throws(RequestError) {
            try load(from: file)
        } catch {
            logger.error("cookies could not be loaded from \(file.path): \(error)")
        }
    }

    /// Saves to the configured file, if any, logging a failure; for shutdown.
    func saveConfiguredFile() {
        guard let file = storage.file else { return }
        do throws(RequestError) {
            try save(to: file)
        } catch {
            logger.error("cookies could not be saved to \(file.path): \(error)")
        }
    }

    // MARK: Inside the lock

    /// The jar's unexpired cookies.
    private static func unexpired(_ jar: CurlCookieList) throws(RequestError) -> [Cookie] {
        let now = Date()
        return try jar.lines().compactMap { Cookie(netscapeLine: $0) }.filter { !$0.hasExpired(at: now) }
    }

    /// Replaces the jar's contents with `cookies`. curl has no call to remove one cookie, and a
    /// cookie added by the API never replaces one a server set, so every change rewrites the jar.
    private static func replaceContents(of jar: CurlCookieList, with cookies: [Cookie]) throws(RequestError) {
        try jar.removeAll()
        for cookie in cookies {
            try jar.add(line: cookie.netscapeLine)
        }
    }
}
