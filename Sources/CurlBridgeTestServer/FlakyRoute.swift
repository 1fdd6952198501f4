import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// `/flaky?key=K&failures=N&status=503&retry-after=V&mode=status|close`: a server that fails
/// the first `N` requests of each key, then succeeds — for retry tests.
///
/// A failure is a response with `status` (503 by default; with a `Retry-After: V` header when
/// asked), or with `mode=close` a connection closed without any answer. Success is a `200` whose
/// body is `"ok after <N> failures"`. Every request is counted per key, failed or not, so a test
/// can check how many attempts reached the server (``requestCount(key:)``); keys keep tests that
/// run in parallel apart.
public enum FlakyRoute {
    private static let counts = NIOLockedValueBox<[String: Int]>([:])

    /// How many requests with `key` the server has received.
    public static func requestCount(key: String) -> Int {
        counts.withLockedValue { $0[key, default: 0] }
    }

    static func plan(_ parameters: QueryParameters) -> ResponsePlan {
        guard let key = parameters["key"] else { return .complete(.badRequest("the key parameter is required")) }
        guard let failures = Router.integer(parameters["failures"], in: 0...1000, default: 1) else {
            return Router.invalid("failures", 0...1000)
        }
        guard let status = Router.integer(parameters["status"], in: Router.statusCodes, default: 503) else {
            return Router.invalid("status", Router.statusCodes)
        }
        let number = counts.withLockedValue { counts -> Int in
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
        guard number > failures else {
            if parameters["mode"] == "close" { return .hangUp }
            var response = CompleteResponse.text(HTTPResponseStatus(statusCode: status), "failure \(number) of \(failures)")
            if let retryAfter = parameters["retry-after"] { response.headers.add(name: "Retry-After", value: retryAfter) }
            return .complete(response)
        }
        return .complete(.text(.ok, "ok after \(failures) failures"))
    }
}
