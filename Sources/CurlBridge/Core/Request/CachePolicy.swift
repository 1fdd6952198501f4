/// How one request uses the transport's ``HTTPCache``: the policies of `NSURLRequest.CachePolicy`,
/// by the same names.
///
/// A transport without a cache (``Configuration/cache`` is `nil`) sends every request, but for
/// ``returnCacheDataDontLoad``, which then fails with ``RequestError/Code/notCached``.
public enum CachePolicy: Sendable, Hashable {
    /// The protocol's rules (RFC 9111): a fresh stored response is reused, a stale one is
    /// revalidated, `Cache-Control` in the request and the response is obeyed. The default.
    case useProtocolCachePolicy
    /// Always sends the request, without a conditional header; the response may be stored.
    case reloadIgnoringCacheData
    /// Sends the request, made conditional on a stored response's validators when there is one:
    /// a `304 Not Modified` is answered with the stored response.
    case reloadRevalidatingCacheData
    /// Answers with a stored response however old it is, and sends the request only when
    /// nothing is stored.
    case returnCacheDataElseLoad
    /// Answers with a stored response however old it is, and never sends the request: nothing
    /// stored fails with ``RequestError/Code/notCached``.
    case returnCacheDataDontLoad
}
