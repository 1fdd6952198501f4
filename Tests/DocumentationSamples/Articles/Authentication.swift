// The names Authentication.md's samples assume.
import CurlBridge
import Foundation

struct AuthenticationSamples: Sendable {
    let client: AsyncClient
    let token: String
    let body: NewUser
    /// The transport the token refreshes go through, without the authentication interceptor.
    let authTransport: Transport
    let apiURL: URL
    /// The JSON of the token saved at the last sign-in.
    let storedToken: Data
}
