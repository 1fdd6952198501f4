extension Transport {
    /// The number of libcurl easy handles alive in this process, across every transport: one per
    /// transfer in flight. A diagnostic for leak checks (a process whose transfers have all
    /// completed should read 0); not a stable API — the underscore says so.
    public static var _liveCurlHandleCount: Int { CurlEasyHandle.liveCount }
}
