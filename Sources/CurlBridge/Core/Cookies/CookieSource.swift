/// Where the cookies a request will carry come from: the transport's jar (``CookieJar``, over
/// curl's cookie engine). The cache asks it to partition responses by who sent them.
protocol CookieSource: Sendable {
    /// The cookies the jar sends to `url`, as its engine matches them (domain, path, `Secure`).
    func cookies(for url: String) throws(RequestError) -> [Cookie]
}
