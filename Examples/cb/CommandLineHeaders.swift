import CurlBridge
import HTTPTypes

/// `-H` and `--plain-http-credentials` with `--queue`, added to each attempt of a request to one
/// of the command line's origins.
///
/// Not request headers given to `enqueue`: the queue journals those without `Authorization`,
/// `Cookie` and the like, so the download a later run rejoins would go without them. Not the
/// configuration's default headers either: those go to every URL, and the journal may hold a
/// download for an origin this command line never named. A redirect to another origin drops
/// these headers as it drops any request header: credentials always, the others unless they are
/// on ``RedirectPolicy/crossOriginSafeHeaders``.
struct CommandLineHeaders: RequestInterceptor {
    /// The origins of the command line's URLs.
    let origins: Set<Credential.Origin>
    /// The `-H` headers, in command-line order.
    let headers: [HeaderLine]
    /// `--plain-http-credentials`.
    let allowsPlainHTTPCredentials: Bool

    /// `request` with the headers it does not have yet, when it goes to one of ``origins``.
    func adapt(_ request: Request, for context: AttemptContext) async throws -> Request {
        guard let origin = Credential.Origin(request.url), origins.contains(origin) else { return request }
        var adapted = allowsPlainHTTPCredentials ? request.allowingCredentialsOverPlainHTTP() : request
        // The request's own header of the same name wins, as over the configuration's default headers.
        for header in headers where HTTPField.Name(header.name).map({ request.headerFields[$0] == nil }) ?? true {
            adapted = adapted.header(header.name, header.value)
        }
        return adapted
    }
}
