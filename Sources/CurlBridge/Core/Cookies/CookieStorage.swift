#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a transport keeps the cookies its servers set (``Configuration/cookies``).
///
/// Each transport has its own jar: clients that share a transport share its cookies, as the tasks
/// of one `NSURLSession` share its `HTTPCookieStorage`.
public enum CookieStorage: Sendable, Hashable {
    /// Cookies live in memory for the life of the transport, as with
    /// `URLSessionConfiguration.ephemeral`. The default.
    case inMemory
    /// Cookies live in memory and in a Netscape cookie file (the format of `curl -b`/`-c`): read
    /// when the transport is made (a missing file is an empty jar), written by
    /// ``CookieJar/save()`` and when the transport shuts down or is released. The file is written
    /// whole and atomically, readable by its owner only (`0600`), session cookies included as curl does.
    case persistent(file: URL)
    /// No cookie engine at all: no cookie is stored or sent except a `Cookie` header the request
    /// sets itself (`httpShouldSetCookies = false` with no `httpCookieStorage`), and the transport
    /// has no ``Transport/cookies`` jar.
    case disabled

    /// Whether requests go through curl's cookie engine.
    var usesCookieEngine: Bool { self != .disabled }

    /// The file the jar is kept in, if any.
    var file: URL? {
        if case .persistent(let file) = self { return file }
        return nil
    }
}
