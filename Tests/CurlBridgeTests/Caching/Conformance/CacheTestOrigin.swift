import CurlBridgeTestServer
import Foundation
import Synchronization

/// The origin server of the cache tests: a `/test/<uuid>…` route on the embedded test server
/// that answers each request from the test whose UUID the path names, as
/// test-engine/server/handle-test.mjs does.
final class CacheTestOrigin: Sendable {
    private let sessions = Mutex<[String: CacheTestSession]>([:])

    /// Registers the route on `server`.
    init(server: TestServer) {
        server.route("/test/*") { [self] request in respond(to: request) }
    }

    /// Answers requests for `session`'s UUID from now on.
    func begin(_ session: CacheTestSession) {
        sessions.withLock { $0[session.uuid] = session }
    }

    /// Forgets `session`.
    func end(_ session: CacheTestSession) {
        _ = sessions.withLock { $0.removeValue(forKey: session.uuid) }
    }

    private func respond(to request: RouteRequest) -> RouteResponse {
        let segments = request.path.split(separator: "/")
        let uuid = segments.count > 1 ? String(segments[1]) : ""
        guard let session = sessions.withLock({ $0[uuid] }) else {
            return .text("Requests not found for \(uuid)", status: 409)
        }
        return session.respond(to: request)
    }
}

/// What the origin saw of one request and what the client must see of its answer: the server
/// state handle-test.mjs stashes, which test.mjs checks once the requests are done.
struct OriginObservation: Sendable {
    /// The client's `Req-Num`; `nil` when it sent none.
    let requestNumber: Int?
    let method: String
    /// The request's header fields by lowercased name, repeated ones joined with ", " as Node
    /// joins them.
    let headers: [String: String]
    /// The response headers the client must receive unchanged, in the order first set: the name
    /// as the test writes it, the value every field of that name joined with ", ".
    let checkedResponseHeaders: [(name: String, value: String)]
}

/// One test as the origin plays it: its requests, its clock, and what it has seen so far.
final class CacheTestSession: Sendable {
    /// The test run's identifier: the path segment after `/test/`, and the default body.
    let uuid: String
    let requests: [CacheTestRequest]
    let clock: CacheTestClock
    private let state = Mutex(State())

    private struct State {
        var observations: [OriginObservation] = []
        /// The response headers each request (by index) was last answered with, magic values
        /// made concrete: the "previous configuration" a validation is compared with.
        var sentResponseHeaders: [Int: [(name: String, value: String)]] = [:]
    }

    init(uuid: String, requests: [CacheTestRequest], clock: CacheTestClock) {
        self.uuid = uuid
        self.requests = requests
        self.clock = clock
    }

    /// Every request the origin has answered, in order.
    var observations: [OriginObservation] {
        state.withLock { $0.observations }
    }

    /// Answers one request as handle-test.mjs does.
    fileprivate func respond(to request: RouteRequest) -> RouteResponse {
        state.withLock { state in
            let serverRequestNumber = state.observations.count + 1
            let clientRequestNumber = request.header("Req-Num").flatMap { Int($0) }
            let number = clientRequestNumber.flatMap { $0 == 0 ? nil : $0 } ?? serverRequestNumber
            guard requests.indices.contains(number - 1) else {
                return .text("config not found for request \(serverRequestNumber) (anticipating \(requests.count))", status: 409)
            }
            let configuration = requests[number - 1]
            if let pause = configuration.responsePause {
                clock.advance(by: TimeInterval(pause))
            }
            let now = clock.millisecondsSince1970
            let requestHeaders = Self.joinedByLowercasedName(request.headers)
            let status = self.status(
                for: configuration, previousHeaders: previousResponseHeaders(before: number, state: state),
                requestHeaders: requestHeaders)

            let target = Self.target(of: request)
            let rendered = Self.render(configuration.responseHeaders, of: configuration, now: now, target: target)
            var headers: [(name: String, value: String)] = [
                ("Server-Base-Url", target),
                ("Server-Request-Count", String(serverRequestNumber)),
                ("Client-Request-Count", clientRequestNumber.map(String.init) ?? "NaN"),
                ("Server-Now", String(now)),
            ]
            headers += rendered.sent
            if !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                headers.append(("Content-Type", "text/plain"))
            }
            // Node adds the Date of the moment it answers when the test gives none.
            if !headers.contains(where: { $0.name.lowercased() == "date" }) {
                headers.append(("Date", MagicHeaderValue.httpDate(millisecondsSince1970: now)))
            }

            state.observations.append(
                OriginObservation(
                    requestNumber: clientRequestNumber, method: request.method, headers: requestHeaders,
                    checkedResponseHeaders: rendered.checked))
            state.sentResponseHeaders[number - 1] = rendered.sent
            let requestNumbers = state.observations.map { $0.requestNumber.map(String.init) ?? "NaN" }
            headers.append(("Request-Numbers", requestNumbers.joined(separator: " ")))

            if configuration.disconnect {
                return .hangUp
            }
            // A test's empty body is no body to Node either: the UUID goes instead.
            let body = configuration.responseBody.flatMap { $0.isEmpty ? nil : $0 } ?? uuid
            if CacheTestChecks.bodylessStatuses.contains(status) {
                return RouteResponse(status: status, headers: headers)
            }
            return RouteResponse(status: status, headers: headers, body: Data(body.utf8))
        }
    }

    /// The request's path and query, as Node's `request.url` gives them.
    private static func target(of request: RouteRequest) -> String {
        guard !request.query.isEmpty else { return request.path }
        return request.path + "?" + request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// The test's response headers with their magic values made concrete (`sent`, in order), and
    /// those the client must receive unchanged (`checked`): each name as the test writes it, with
    /// every value of that name so far joined by ", ", as Node's `getHeader` and Fetch show them.
    private static func render(
        _ templates: [HeaderTemplate], of configuration: CacheTestRequest, now: Int64, target: String
    ) -> (sent: [(name: String, value: String)], checked: [(name: String, value: String)]) {
        var sent: [(name: String, value: String)] = []
        var checked: [(name: String, value: String)] = []
        for template in templates {
            let value = MagicHeaderValue.resolve(
                template.name, template.value, serverNow: now, serverBaseURL: target, in: configuration)
            sent.append((template.name, value))
            guard template.isChecked else { continue }
            let allValues = sent.filter { $0.name.lowercased() == template.name.lowercased() }.map(\.value).joined(separator: ", ")
            if let index = checked.firstIndex(where: { $0.name == template.name }) {
                checked[index].value = allValues
            } else {
                checked.append((template.name, allValues))
            }
        }
        return (sent, checked)
    }

    /// The response headers of the request before request `number`: as sent when the origin
    /// answered it, else as the test writes them (where a date offset is no value yet).
    private func previousResponseHeaders(before number: Int, state: State) -> [(name: String, value: String)] {
        if let sent = state.sentResponseHeaders[number - 2] { return sent }
        guard requests.indices.contains(number - 2) else { return [] }
        return requests[number - 2].responseHeaders.compactMap { template in
            guard case .text(let value) = template.value else { return nil }
            return (template.name, value)
        }
    }

    /// The status to answer with: the test's (200 by default); for a request the test expects
    /// to be a validation, `304` when it carries the previous response's `Last-Modified` or
    /// `ETag`, otherwise `999`, which tells the client it was not conditional.
    private func status(
        for configuration: CacheTestRequest, previousHeaders: [(name: String, value: String)], requestHeaders: [String: String]
    ) -> Int {
        guard configuration.expectedType?.isValidated == true else { return configuration.responseStatus ?? 200 }
        func previous(_ name: String) -> String? {
            previousHeaders.last { $0.name.lowercased() == name }.map(\.value).flatMap { $0.isEmpty ? nil : $0 }
        }
        if let lastModified = previous("last-modified"), requestHeaders["if-modified-since"] == lastModified { return 304 }
        if let etag = previous("etag"), requestHeaders["if-none-match"] == etag { return 304 }
        return 999
    }

    private static func joinedByLowercasedName(_ fields: [(name: String, value: String)]) -> [String: String] {
        fields.reduce(into: [:]) { joined, field in
            let name = field.name.lowercased()
            joined[name] = joined[name].map { $0 + ", " + field.value } ?? field.value
        }
    }
}
