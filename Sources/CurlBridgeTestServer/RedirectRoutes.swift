import NIOCore
import NIOHTTP1

/// The redirect routes: a single redirect with options, a chain, and a loop.
enum RedirectRoutes {
    /// `/redirect-to?url=…&status=302&set-cookie=…&delay=ms&body-bytes=N`.
    static func redirectTo(_ parameters: QueryParameters) -> ResponsePlan {
        guard let location = parameters["url"] else {
            return .complete(.badRequest("the url parameter is required"))
        }
        guard let code = Router.integer(parameters["status"], in: Router.redirectStatusCodes, default: 302) else {
            return Router.invalid("status", Router.redirectStatusCodes)
        }
        guard let delay = Router.integer(parameters["delay"], in: Router.milliseconds, default: 0) else {
            return Router.invalid("delay", Router.milliseconds)
        }
        guard let bodyBytes = Router.integer(parameters["body-bytes"], in: 0...(64 << 20), default: -1) else {
            return Router.invalid("body-bytes", 0...(64 << 20))
        }
        var response = (bodyBytes >= 0 ? bodyBytes : nil).map { count in
            CompleteResponse(
                status: HTTPResponseStatus(statusCode: code), headers: ["Content-Type": "application/octet-stream"],
                body: ByteBuffer(bytes: (0..<count).lazy.map { UInt8(truncatingIfNeeded: $0 % 251) }))
        } ?? CompleteResponse.text(HTTPResponseStatus(statusCode: code), "redirecting to " + location)
        response.headers.add(name: "Location", value: location)
        if let cookie = parameters["set-cookie"] {
            response.headers.add(name: "Set-Cookie", value: cookie)
        }
        return delay > 0 ? .delayed(.milliseconds(Int64(delay)), response) : .complete(response)
    }

    /// `/redirect/N`: a `302` to the relative `/redirect/N-1`; `/redirect/0` answers like `/echo`.
    static func chain(remaining: Int, request: ReceivedRequest) -> ResponsePlan {
        guard remaining > 0 else { return .complete(.json(EchoReply(describing: request))) }
        var response = CompleteResponse.text(.found, "redirecting")
        response.headers.add(name: "Location", value: "/redirect/\(remaining - 1)")
        return .complete(response)
    }

    /// `/redirect-loop`: a `302` to itself.
    static func loop() -> ResponsePlan {
        var response = CompleteResponse.text(.found, "round and round")
        response.headers.add(name: "Location", value: "/redirect-loop")
        return .complete(response)
    }
}
