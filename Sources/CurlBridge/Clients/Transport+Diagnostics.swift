extension Transport {
    /// The number of libcurl easy handles alive in this process, across every transport: one per
    /// transfer in flight, plus the reset handles each live transport keeps for reuse (at most
    /// 16 per idle transport, all released when it shuts down; a retired handle object holds no
    /// curl handle and is not counted). A diagnostic for leak checks (a process
    /// whose transports have all shut down should read 0); not a stable API — the underscore says so.
    public static var _liveCurlHandleCount: Int { CurlEasyHandle.liveCount }

    /// The number of curl transfers alive in this process, across every transport: one per
    /// transfer in flight, 0 once they have all ended and been let go. A transfer gives its curl
    /// handle back when it ends, so a transfer leaked after that shows here and not in
    /// ``_liveCurlHandleCount``. A diagnostic for leak checks; not a stable API.
    public static var _liveCurlTransferCount: Int { CurlTransfer.live.value }

    /// How many of this transport's transfers began on an easy handle reused from its pool (a
    /// test diagnostic: a test sending two requests in a row sees whether the second reused the
    /// first one's handle).
    var reusedEasyHandleCount: Int {
        if case .success(let core) = core { return core.reusedHandles?.value ?? 0 }
        return 0
    }
}
