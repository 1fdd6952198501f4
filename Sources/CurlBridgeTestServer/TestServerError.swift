/// Why ``TestServer`` could not start.
enum TestServerError: Error {
    /// A bound listener reported no local port.
    case listenerHasNoPort
    /// The server URL could not be formed.
    case invalidURL
}
