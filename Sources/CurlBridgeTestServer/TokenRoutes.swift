import NIOCore
import NIOHTTP1
import NIOConcurrencyHelpers

/// The token routes, for clients that refresh credentials. Each realm (a name the test picks, so
/// tests running in parallel never share one) has server-side state: the one bearer token it
/// currently accepts (none at first), how many requests presented each token, and how many
/// refreshes it issued. The state is process-wide, shared by every ``TestServer``.
/// - `/token/resource?realm=R`: ``EchoReply`` if `Authorization: Bearer T` names R's valid token,
///   else `401` with `WWW-Authenticate: Bearer realm="R", error="invalid_token"`. With `hold=N`
///   a refusal is held back until N refusals of R are waiting, then all of them are sent at once:
///   N requests are all in flight with a refused token before any of them hears so.
/// - `/token/refresh?realm=R`: makes `R-K` R's valid token (for its K-th refresh, from 1) and
///   answers it as the `text/plain` body; with `fail=1`, a `503` and no new token.
enum TokenRoutes {
    /// One realm's state.
    struct Realm {
        var validToken: String?
        /// Requests to `/token/resource` per bearer token presented (`""`: none).
        var requestsByToken: [String: Int] = [:]
        /// Tokens issued by `/token/refresh`.
        var refreshes = 0
        /// The responders of held refusals, waiting for the `hold` count.
        var heldRefusals: [@Sendable (CompleteResponse) -> Void] = []
    }

    /// Every realm's state, by name. A `NIOLockedValueBox` (a pthread mutex), not a `Mutex`:
    /// concurrent requests contend for it, and ThreadSanitizer reports `Mutex`'s contended
    /// hand-over on Linux as a race (scripts/tsan-mutex-repro).
    static let realms = NIOLockedValueBox<[String: Realm]>([:])

    /// The plan for `request` when its path is a token route, else `nil`.
    static func plan(for request: ReceivedRequest) -> ResponsePlan? {
        let parameters = request.queryParameters
        switch request.path {
        case "/token/resource":
            guard let realm = parameters["realm"] else { return .complete(.badRequest("realm is required")) }
            guard let hold = Router.integer(parameters["hold"], in: 1...1000, default: 1) else {
                return Router.invalid("hold", 1...1000)
            }
            return resource(request, realm: realm, hold: hold)
        case "/token/refresh":
            guard let realm = parameters["realm"] else { return .complete(.badRequest("realm is required")) }
            if parameters["fail"] == "1" { return .complete(.text(.serviceUnavailable, "refresh refused")) }
            let token = realms.withLockedValue { realms in
                realms[realm, default: Realm()].refreshes += 1
                let token = "\(realm)-\(realms[realm, default: Realm()].refreshes)"
                realms[realm, default: Realm()].validToken = token
                return token
            }
            return .complete(CompleteResponse(status: .ok, contentType: "text/plain; charset=utf-8", body: token))
        default:
            return nil
        }
    }

    private static func resource(_ request: ReceivedRequest, realm: String, hold: Int) -> ResponsePlan {
        let authorization = request.head.headers["Authorization"].first ?? ""
        let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : ""
        let accepted = realms.withLockedValue { realms in
            realms[realm, default: Realm()].requestsByToken[token, default: 0] += 1
            return realms[realm]?.validToken == token && !token.isEmpty
        }
        if accepted { return .complete(.json(EchoReply(describing: request))) }
        let refusal = AuthRoutes.unauthorized(challenge: "Bearer realm=\"\(realm)\", error=\"invalid_token\"")
        guard hold > 1 else { return .complete(refusal) }
        return .eventual { respond in
            let released: [@Sendable (CompleteResponse) -> Void] = realms.withLockedValue { realms in
                realms[realm, default: Realm()].heldRefusals.append(respond)
                guard realms[realm, default: Realm()].heldRefusals.count >= hold else { return [] }
                defer { realms[realm]?.heldRefusals = [] }
                return realms[realm]?.heldRefusals ?? []
            }
            for responder in released { responder(refusal) }
        }
    }
}
