// The names RetriesAndInterceptors.md's samples assume.
import CurlBridge

struct RetriesAndInterceptorsSamples: Sendable {
    let client: AsyncClient
    let signer: Signer
    let item: NewUser
}

/// The reader's request signer.
struct Signer: Sendable {
    func sign(_ request: Request) async throws -> String { "" }
}
