import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The routes a test registered on its server, consulted before the built-in ones.
final class RegisteredRoutes: Sendable {
    private struct Route {
        let method: String?
        let path: String
        let respond: @Sendable (RouteRequest) -> RouteResponse

        func matches(_ request: ReceivedRequest) -> Bool {
            if let method, method != request.head.method.rawValue { return false }
            if path.hasSuffix("*") { return request.path.hasPrefix(path.dropLast()) }
            return request.path == path
        }
    }

    private let routes = NIOLockedValueBox<[Route]>([])

    /// Adds a route; the latest registered of those matching a request answers it.
    func add(method: String?, path: String, respond: @escaping @Sendable (RouteRequest) -> RouteResponse) {
        routes.withLockedValue { $0.append(Route(method: method, path: path, respond: respond)) }
    }

    /// The plan of the registered route for `request`, if one matches; run off the event loop.
    func plan(for request: ReceivedRequest) -> ResponsePlan? {
        guard let route = routes.withLockedValue({ $0.last { $0.matches(request) } }) else { return nil }
        let routeRequest = RouteRequest(
            method: request.head.method.rawValue, path: request.path,
            query: request.queryParameters.pairs,
            headers: request.head.headers.map { (name: $0.name, value: $0.value) },
            body: Data(request.body.readableBytesView), httpVersion: request.httpVersion)
        return .offloaded {
            let answer = route.respond(routeRequest)
            guard !answer.closesWithoutAnswer else { return nil }
            var headers = HTTPHeaders()
            for field in answer.headers { headers.add(name: field.name, value: field.value) }
            return CompleteResponse(
                status: HTTPResponseStatus(statusCode: answer.status), headers: headers, body: ByteBuffer(bytes: answer.body))
        }
    }
}
