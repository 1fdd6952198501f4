/// A raw pointer to a curl handle (`CURLM *`, `CURLSH *`) or to C state handed to curl (the
/// cookie share's mutexes), held as a `let` by an object that other threads may reach. Which
/// thread may use what it points to is the holder's rule, stated where the holder keeps it.
///
/// `@unchecked Sendable`: only the address crosses threads; each holder serialises the use of what it points to.
struct CurlPointer<Pointer>: @unchecked Sendable {
    /// The pointer.
    let raw: Pointer

    /// Holds `raw`.
    init(_ raw: Pointer) {
        self.raw = raw
    }
}
