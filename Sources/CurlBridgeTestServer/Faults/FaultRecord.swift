/// What ``FaultServer`` saw for one `key`: the requests, and how their connections ended.
public struct FaultRecord: Sendable, Equatable {
    /// One request the server read in full.
    public struct Request: Sendable, Equatable {
        /// The method, as sent.
        public var method: String
        /// The path, without the query.
        public var path: String
        /// Body bytes received (by `Content-Length`).
        public var bodyLength: Int
        /// The connection's number on the server, from 1.
        public var connection: Int
        /// 1 for the first request on its connection, 2 for the next, and so on.
        public var indexOnConnection: Int
    }

    /// Every request read, in order.
    public var requests: [Request] = []
    /// Connections that the client closed while the server was still answering (stalling,
    /// dripping or sending): the client gave up early.
    public var closedByClient = 0
    /// Response bytes written to those connections before the client closed them.
    public var bytesSentBeforeClientClose = 0

    /// The requests whose method is `method`.
    public func requests(_ method: String) -> [Request] {
        requests.filter { $0.method == method }
    }
}
