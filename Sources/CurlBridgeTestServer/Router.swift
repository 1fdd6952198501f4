import Foundation
import NIOCore
import NIOHTTP1

/// Maps a request to the ``ResponsePlan`` of its route (see ``TestServer`` for the route list).
enum Router {
    /// The largest `N` accepted by `/bytes/N`, `/chunked/N` and `/drip?bytes=N` (4 GiB).
    static let maximumByteCount = 1 << 32
    /// The longest delay or interval accepted, in milliseconds (one hour).
    static let maximumMilliseconds = 3_600_000

    /// Chooses the plan for `request`; unknown paths get `404`, malformed parameters `400`.
    static func plan(for request: ReceivedRequest) -> ResponsePlan {
        let segments = request.path.split(separator: "/").map(String.init)
        let parameters = request.queryParameters
        switch (segments.first, segments.count) {
        case ("echo", _):
            return .complete(echo(request))
        case ("status", 2):
            return integer(segments[1], "status code", maximum: 599) { status(code: $0) }
        case ("delay", 2):
            return integer(segments[1], "delay", maximum: maximumMilliseconds) {
                .delayed(.milliseconds(Int64($0)), echo(request))
            }
        case ("bytes", 2):
            return integer(segments[1], "byte count", maximum: maximumByteCount) {
                patternBytes(count: $0, chunked: false, request: request)
            }
        case ("chunked", 2):
            return integer(segments[1], "byte count", maximum: maximumByteCount) {
                patternBytes(count: $0, chunked: true, request: request)
            }
        case _ where GzipRoute.matches(path: request.path):
            return .complete(GzipRoute.response(compressed: request.head.method != .HEAD))
        case ("drip", 1):
            return drip(parameters, request: request)
        case ("close-mid-body", 1):
            return request.head.method == .HEAD
                ? .complete(octetStream(declaredLength: 1000)) : .truncated(declaredLength: 1000, sentLength: 100)
        case ("never-respond", 1):
            return .silence
        case ("response-headers", 1):
            return .complete(responseHeaders(parameters))
        case ("redirect-to", 1):
            return redirect(parameters)
        case ("json", 1):
            return .complete(
                CompleteResponse(status: .ok, contentType: "application/json", body: #"{"id":42,"name":"CurlBridge"}"#)
            )
        default:
            return .complete(.text(.notFound, "not found: " + request.path))
        }
    }

    private static func echo(_ request: ReceivedRequest) -> CompleteResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let json = try encoder.encode(EchoReply(describing: request))
            var response = CompleteResponse(status: .ok, contentType: "application/json", body: "")
            response.body = ByteBuffer(bytes: json)
            return response
        } catch {
            return .text(.internalServerError, "cannot encode the echo reply: \(error)")
        }
    }

    private static func status(code: Int) -> ResponsePlan {
        guard code >= 200 else {
            return .complete(.badRequest("status code must be in 200...599"))
        }
        let status = HTTPResponseStatus(statusCode: code)
        return .complete(.text(status, "\(code) \(status.reasonPhrase)"))
    }

    private static func patternBytes(count: Int, chunked: Bool, request: ReceivedRequest) -> ResponsePlan {
        if request.head.method == .HEAD {
            return .complete(octetStream(declaredLength: count))
        }
        // `/chunked` is cut into at least eight pieces so it really arrives in several chunks.
        let chunkSize = chunked ? (count + 7) / 8 : PatternBytes.maximumSliceLength
        return .pattern(PatternStream(count: count, chunkSize: chunkSize), declaresLength: !chunked)
    }

    private static func drip(_ parameters: QueryParameters, request: ReceivedRequest) -> ResponsePlan {
        guard let count = nonNegative(parameters["bytes"], default: 10, maximum: maximumByteCount),
            let interval = nonNegative(parameters["interval"], default: 100, maximum: maximumMilliseconds),
            let delay = nonNegative(parameters["delay"], default: 0, maximum: maximumMilliseconds)
        else {
            return .complete(
                .badRequest("bytes (at most \(maximumByteCount)), interval and delay (at most \(maximumMilliseconds)) must be non-negative integers")
            )
        }
        if request.head.method == .HEAD {
            return .delayed(.milliseconds(Int64(delay)), octetStream(declaredLength: count))
        }
        return .drip(count: count, interval: .milliseconds(Int64(interval)), initialDelay: .milliseconds(Int64(delay)))
    }

    private static func responseHeaders(_ parameters: QueryParameters) -> CompleteResponse {
        var response = CompleteResponse(status: .ok, contentType: "text/plain; charset=utf-8", body: "ok")
        for (name, value) in parameters.pairs {
            if name.lowercased() == "content-type" {
                response.headers.replaceOrAdd(name: name, value: value)
            } else {
                response.headers.add(name: name, value: value)
            }
        }
        return response
    }

    private static func redirect(_ parameters: QueryParameters) -> ResponsePlan {
        guard let location = parameters["url"] else {
            return .complete(.badRequest("the url parameter is required"))
        }
        guard let code = nonNegative(parameters["status"], default: 302, maximum: 399), code >= 300 else {
            return .complete(.badRequest("status must be in 300...399"))
        }
        var response = CompleteResponse.text(HTTPResponseStatus(statusCode: code), "redirecting to " + location)
        response.headers.add(name: "Location", value: location)
        return .complete(response)
    }

    /// A body-less `200` announcing `declaredLength` bytes of octets, for `HEAD` of streaming routes.
    private static func octetStream(declaredLength: Int) -> CompleteResponse {
        var response = CompleteResponse(status: .ok, contentType: "application/octet-stream", body: "")
        response.headers.add(name: "Content-Length", value: String(declaredLength))
        return response
    }

    /// Runs `route` with `text` as an integer in `0...maximum`, or answers `400` naming `what`.
    private static func integer(
        _ text: String,
        _ what: String,
        maximum: Int,
        _ route: (Int) -> ResponsePlan
    ) -> ResponsePlan {
        guard let value = nonNegative(text, default: nil, maximum: maximum) else {
            return .complete(.badRequest("\(what) must be an integer in 0...\(maximum), got \(text)"))
        }
        return route(value)
    }

    /// `text` as an integer in `0...maximum`; `fallback` when `text` is `nil`; `nil` when malformed
    /// or out of range.
    private static func nonNegative(_ text: String?, default fallback: Int?, maximum: Int) -> Int? {
        guard let text else { return fallback }
        guard let value = Int(text), (0...maximum).contains(value) else { return nil }
        return value
    }
}
