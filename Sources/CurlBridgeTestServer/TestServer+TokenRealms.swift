extension TestServer {
    /// Makes `token` the only bearer token `/token/resource?realm=<realm>` accepts (`nil`: none).
    /// Realms are shared by every server in the process (see `TokenRoutes`).
    public func setValidToken(_ token: String?, realm: String) {
        TokenRoutes.realms.withLockedValue { $0[realm, default: TokenRoutes.Realm()].validToken = token }
    }

    /// How many requests to `/token/resource?realm=<realm>` presented each bearer token (`""`
    /// for none), accepted or not.
    public func tokenRequests(realm: String) -> [String: Int] {
        TokenRoutes.realms.withLockedValue { $0[realm]?.requestsByToken ?? [:] }
    }

    /// How many tokens `/token/refresh?realm=<realm>` has issued.
    public func tokenRefreshes(realm: String) -> Int {
        TokenRoutes.realms.withLockedValue { $0[realm]?.refreshes ?? 0 }
    }
}
