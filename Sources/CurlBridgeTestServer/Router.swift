import NIOCore
import NIOHTTP1

/// Maps a request to the ``ResponsePlan`` of its route (see ``TestServer`` for the route list).
enum Router {
    /// Accepted `N` of `/bytes/N`, `/chunked/N`, `/resource/N` and `/drip?bytes=N` (up to 4 GiB).
    static let byteCounts = 0...(1 << 32)
    /// Accepted delays and intervals in milliseconds (up to one hour).
    static let milliseconds = 0...3_600_000
    /// Accepted `N` of `/status/N`.
    static let statusCodes = 200...599
    /// Accepted `status` of `/redirect-to`.
    static let redirectStatusCodes = 300...399

    /// Chooses the plan for `request`; unknown paths get `404`, malformed parameters `400`.
    static func plan(for request: ReceivedRequest) -> ResponsePlan {
        let segments = request.path.split(separator: "/").map(String.init)
        let parameters = request.queryParameters
        if let plan = AuthRoutes.plan(for: request) { return plan }
        if segments.first == "flaky" { return FlakyRoute.plan(parameters) }
        switch (segments.first, segments.count) {
        case ("echo", _):
            return .complete(echo(request))
        case ("status", 2):
            guard let code = integer(segments[1], in: statusCodes) else { return invalid("status code", statusCodes) }
            let status = HTTPResponseStatus(statusCode: code)
            return .complete(.text(status, "\(code) \(status.reasonPhrase)"))
        case ("delay", 2):
            guard let delay = integer(segments[1], in: milliseconds) else { return invalid("delay", milliseconds) }
            return .delayed(.milliseconds(Int64(delay)), echo(request))
        case ("bytes", 2), ("chunked", 2):
            guard let count = integer(segments[1], in: byteCounts) else { return invalid("byte count", byteCounts) }
            return patternBytes(count: count, chunked: segments[0] == "chunked", request: request)
        case ("resource", 2):
            guard let size = integer(segments[1], in: byteCounts) else { return invalid("size", byteCounts) }
            return ResourceRoute.plan(size: size, for: request)
        case _ where GzipRoute.matches(path: request.path):
            return .complete(GzipRoute.response(compressed: request.head.method != .HEAD))
        case ("drip", 1):
            return drip(parameters, request: request)
        case ("close-mid-body", 1):
            return closeMidBody(request)
        case ("never-respond", 1):
            return .silence
        case ("response-headers", 1):
            return .complete(responseHeaders(parameters))
        case ("redirect-to", 1):
            return RedirectRoutes.redirectTo(parameters)
        case ("redirect", 2):
            guard let hops = integer(segments[1], in: 0...100) else { return invalid("hop count", 0...100) }
            return RedirectRoutes.chain(remaining: hops, request: request)
        case ("redirect-loop", 1):
            return RedirectRoutes.loop()
        case ("multipart", 1):
            return .offloaded { MultipartRoute.response(to: request) }
        case ("json", 1):
            return .complete(
                CompleteResponse(status: .ok, contentType: "application/json", body: #"{"id":42,"name":"CurlBridge"}"#)
            )
        default:
            return .complete(.text(.notFound, "not found: " + request.path))
        }
    }

    private static func echo(_ request: ReceivedRequest) -> CompleteResponse {
        .json(EchoReply(describing: request))
    }

    private static func patternBytes(count: Int, chunked: Bool, request: ReceivedRequest) -> ResponsePlan {
        if request.head.method == .HEAD {
            return .complete(octetStream(declaredLength: count))
        }
        // `/chunked` goes out in eighths (at most 64 KiB each) so it really arrives in several chunks.
        let chunkSize = chunked ? (count + 7) / 8 : PatternBytes.maximumSliceLength
        let stream = PatternStream(count: count, chunkSize: chunkSize)
        return .pattern(.octets(stream, declaredLength: chunked ? nil : count))
    }

    /// `/close-mid-body`: 1000 bytes announced, 100 sent, then the connection closed.
    private static func closeMidBody(_ request: ReceivedRequest) -> ResponsePlan {
        if request.head.method == .HEAD {
            return .complete(octetStream(declaredLength: 1000))
        }
        var response = PatternResponse.octets(PatternStream(count: 100), declaredLength: 1000)
        response.ending = .close
        return .pattern(response)
    }

    private static func drip(_ parameters: QueryParameters, request: ReceivedRequest) -> ResponsePlan {
        guard let count = integer(parameters["bytes"], in: byteCounts, default: 10) else {
            return invalid("bytes", byteCounts)
        }
        guard let interval = integer(parameters["interval"], in: milliseconds, default: 100) else {
            return invalid("interval", milliseconds)
        }
        guard let delay = integer(parameters["delay"], in: milliseconds, default: 0) else {
            return invalid("delay", milliseconds)
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

    /// A body-less `200` announcing `declaredLength` bytes of octets, for `HEAD` of streaming routes.
    private static func octetStream(declaredLength: Int) -> CompleteResponse {
        var response = CompleteResponse(status: .ok, contentType: "application/octet-stream", body: "")
        response.headers.add(name: "Content-Length", value: String(declaredLength))
        return response
    }

    /// `text` as an integer within `range`; `fallback` when `text` is `nil`; `nil` when malformed or
    /// out of range.
    static func integer(_ text: String?, in range: ClosedRange<Int>, default fallback: Int? = nil) -> Int? {
        guard let text else { return fallback }
        guard let value = Int(text), range.contains(value) else { return nil }
        return value
    }

    /// A `400` saying that the parameter called `what` must be an integer within `range`.
    static func invalid(_ what: String, _ range: ClosedRange<Int>) -> ResponsePlan {
        .complete(.badRequest("\(what) must be an integer in \(range)"))
    }
}
