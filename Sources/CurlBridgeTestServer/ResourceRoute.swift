import NIOHTTP1

/// `/resource/N`: a large download that behaves like a file on a static file server, for resumed
/// and verified downloads. Version `V` has byte `i` equal to `UInt8((i + V) % 251)`, streamed with
/// backpressure, so any size costs no memory.
///
/// It sends validators (``ResourceValidators``), takes one `Range` (``RequestedRange``) subject to
/// `If-Range`, and has switches (``ResourceOptions``) to weaken, share or drop the validators,
/// ignore ranges or `If-Range`, ask for Basic credentials, and cut the body short of its
/// `Content-Length`.
enum ResourceRoute {
    /// The plan for `request` of the `size`-byte resource; `400` for malformed parameters.
    static func plan(size: Int, for request: ReceivedRequest) -> ResponsePlan {
        guard let options = ResourceOptions(request.queryParameters) else {
            return .complete(.badRequest(ResourceOptions.requirements))
        }
        if let token = options.basicToken, request.head.headers["Authorization"] != ["Basic " + token] {
            return .complete(AuthRoutes.unauthorized(challenge: "Basic realm=\"\(AuthRoutes.realm)\""))
        }
        let validators = ResourceValidators(
            size: size, version: options.version, style: options.validatorStyle, tag: options.tag, justModified: options.justModified)
        var headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
        if options.honoursRanges {
            headers.add(name: "Accept-Ranges", value: "bytes")
        }
        validators.add(to: &headers)

        let status: HTTPResponseStatus
        let bytes: Range<Int>
        switch requestedRange(of: request, size: size, options: options, validators: validators) {
        case .unsatisfiable:
            headers.add(name: "Content-Range", value: "bytes */\(size)")
            headers.add(name: "Content-Length", value: "0")
            return .complete(CompleteResponse(status: .rangeNotSatisfiable, headers: headers))
        case .satisfiable(let range):
            status = .partialContent
            bytes = Range(range)
            headers.add(name: "Content-Range", value: "bytes \(range.lowerBound)-\(range.upperBound)/\(size)")
        case .whole:
            status = .ok
            bytes = 0..<size
        }
        headers.add(name: "Content-Length", value: String(bytes.count))
        if request.head.method == .HEAD {
            return .complete(CompleteResponse(status: status, headers: headers))
        }
        let sentCount = min(bytes.count, options.cut ?? options.stall ?? bytes.count)
        // Byte `i` of version `V` is pattern byte `i + V`.
        let stream = PatternStream(count: sentCount, startingAt: bytes.lowerBound + options.version)
        let ending: PatternResponse.Ending = sentCount == bytes.count ? .complete : options.cut != nil ? .close : .stall
        return .pattern(PatternResponse(status: status, headers: headers, stream: stream, ending: ending))
    }

    /// The range to send: the `Range` header's, unless ranges are ignored or `If-Range` does not
    /// match the current validators, in which case the whole body.
    private static func requestedRange(
        of request: ReceivedRequest,
        size: Int,
        options: ResourceOptions,
        validators: ResourceValidators
    ) -> RequestedRange {
        let headers = request.head.headers
        guard options.honoursRanges, !options.honoursIfRange || validators.admitRange(ifRange: headers.first(name: "If-Range")) else {
            return .whole
        }
        return RequestedRange(headerValues: headers["Range"], size: size)
    }
}
