// The names FollowingRedirects.md's samples assume.
import CurlBridge

struct FollowingRedirectsSamples: Sendable {
    let client: AsyncClient
    let key: String
    let id: String
}
