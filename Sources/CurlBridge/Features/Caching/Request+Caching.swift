extension Request {
    /// This request with its own cache policy (`NSURLRequest.cachePolicy`), such as
    /// ``CachePolicy/returnCacheDataElseLoad`` for an offline-first screen.
    public func cachePolicy(_ policy: CachePolicy) -> Request {
        var copy = self
        copy.cachePolicy = policy
        return copy
    }
}
