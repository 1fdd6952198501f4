extension Configuration {
    /// The HTTP cache its requests use (RFC 9111, with each request's ``Request/cachePolicy``);
    /// `nil`, the default, for none — requests then cost nothing more.
    public var cache: HTTPCache? {
        get { cacheSlot as? HTTPCache }
        set { cacheSlot = newValue }
    }
}
