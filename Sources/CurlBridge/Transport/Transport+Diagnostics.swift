extension Transport {
    /// How many curl easy handles exist in the process right now, over all transports: a
    /// diagnostic for leak checks run from a separate executable (the storm and soak programs),
    /// not an API to build on. Every finished transfer releases its handle, so with nothing in
    /// flight this is `0`. Reach it with `@_spi(Diagnostics) import CurlBridge`.
    @_spi(Diagnostics) public static var liveEasyHandleCount: Int { CurlEasyHandle.liveCount }
}
