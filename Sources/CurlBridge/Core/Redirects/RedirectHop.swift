import HTTPTypes

/// One redirect that was followed: which URL answered with which 3xx, and where it pointed.
public struct RedirectHop: Sendable, Hashable {
    /// The redirect's status (301, 302, 303, 307 or 308).
    public var status: HTTPResponse.Status
    /// The URL that answered with the redirect.
    public var url: String
    /// The absolute URL the redirect led to (its `Location`, resolved against ``url``).
    public var location: String

    /// Creates a hop.
    public init(status: HTTPResponse.Status, url: String, location: String) {
        self.status = status
        self.url = url
        self.location = location
    }
}
