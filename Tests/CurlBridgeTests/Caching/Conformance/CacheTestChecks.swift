/// The checks of test-engine/client/test.mjs: `checkResponse` on each response as it arrives,
/// `checkServerRequests` on what the origin received once all requests are done. The messages
/// are the suite's.
enum CacheTestChecks {
    /// Statuses whose responses have no body (lib/defines.mjs).
    static let bodylessStatuses: Set<Int> = [204, 304]

    /// Throws unless `condition` holds (lib/utils.mjs `assert`).
    private static func require(_ condition: Bool, _ isSetup: Bool, _ message: @autoclosure () -> String) throws(CacheTestCheckFailure) {
        guard condition else { throw CacheTestCheckFailure(isSetup: isSetup, message: message()) }
    }

    /// Checks response `number` (from 1) to `request` of the test with `uuid`.
    static func checkResponse(
        _ response: ReceivedResponse, to request: CacheTestRequest, number: Int, uuid: String
    ) throws(CacheTestCheckFailure) {
        let servedBy = response.serverRequestCount
        // Each response carries the numbers of every request the origin has seen: one twice
        // means the request was retried, and the test cannot say what happened.
        if let numbers = response.value(of: "Request-Numbers")?.split(separator: " ") {
            try require(Set(numbers).count == numbers.count, true, "retry")
        }

        if let type = request.expectedType {
            let isSetup = request.isSetup("expected_type")
            switch type {
            case .cached:
                // Some caches leave the header out of a 304 they make themselves.
                if !(response.status == 304 && servedBy == nil) {
                    try require(servedBy.map { $0 < number } ?? false, isSetup, "Response \(number) does not come from cache")
                }
            case .notCached:
                try require(servedBy == number, isSetup, "Response \(number) comes from cache")
            case .etagValidated, .lmValidated:
                break
            }
        }

        switch request.expectedStatus {
        case .null:
            break
        case .value(let status):
            try require(
                response.status == status, request.isSetup("expected_status"),
                "Response \(number) status is \(response.status), not \(status)")
        case .absent:
            if let status = request.responseStatus {
                try require(response.status == status, true, "Response \(number) status is \(response.status), not \(status)")
            } else if response.status == 999 {
                try require(false, request.isSetup("expected_type"), "Request \(number) should have been conditional, but it was not.")
            } else {
                try require(response.status == 200, true, "Response \(number) status is \(response.status), not 200")
            }
        }

        try checkHeaders(of: response, to: request, number: number)
        try checkBody(of: response, to: request, uuid: uuid)
    }

    private static func checkHeaders(
        of response: ReceivedResponse, to request: CacheTestRequest, number: Int
    ) throws(CacheTestCheckFailure) {
        let presentSetup = request.isSetup("expected_response_headers")
        for expectation in request.expectedResponseHeaders {
            let name = expectation.name
            let value = response.value(of: name)
            switch expectation {
            case .present:
                try require(value != nil, presentSetup, "Response \(number) \(name) header not present.")
            case .sameAs(_, let other):
                try require(value != nil, presentSetup, "Response \(number) \(name) header not present.")
                let expected = response.value(of: other)
                try require(
                    value == expected, presentSetup,
                    "Response \(number) header \(name) is \(value ?? "null"), should match \(other) (\(expected ?? "null"))")
            case .greaterThan(_, let limit):
                try require(value != nil, presentSetup, "Response \(number) \(name) header not present.")
                try require(
                    value.flatMap(leadingInteger).map { $0 > limit } ?? false, presentSetup,
                    "Response \(number) header \(name) is \(value ?? "null"), should be bigger than \(limit)")
            case .equals(_, let written):
                let expected = MagicHeaderValue.resolve(
                    name, written, serverNow: response.serverNow, serverBaseURL: response.value(of: "Server-Base-Url"), in: request)
                try require(
                    value == expected, presentSetup, "Response \(number) header \(name) is \"\(value ?? "null")\", not \"\(expected)\"")
            }
        }

        let missingSetup = request.isSetup("expected_response_headers_missing")
        for expectation in request.expectedResponseHeadersMissing {
            switch expectation {
            case .absent(let name):
                let value = response.value(of: name)
                try require(value == nil, missingSetup, "Response \(number) includes unexpected header \(name): \"\(value ?? "")\"")
            case .notContaining(let name, let unwanted):
                // The suite's engine means to check this but never does: it reads the header as
                // a property of Fetch's Headers, which is always undefined. Checked here as its
                // CONTRIBUTING.md describes.
                if let value = response.value(of: name) {
                    try require(!value.contains(unwanted), missingSetup, "Response \(number) header \(name) still has value \"\(value)\"")
                }
            }
        }
    }

    private static func checkBody(of response: ReceivedResponse, to request: CacheTestRequest, uuid: String) throws(CacheTestCheckFailure) {
        guard request.checksBody else { return }
        switch request.expectedResponseText {
        case .null:
            break
        case .value(let text):
            try require(
                response.body == text, request.isSetup("expected_response_text"), "Response body is \"\(response.body)\", not \"\(text)\"")
        case .absent:
            if let body = request.responseBody {
                try require(response.body == body, true, "Response body is \"\(response.body)\", not \"\(body)\"")
            } else if !bodylessStatuses.contains(response.status) && request.requestMethod != "HEAD" {
                try require(response.body == uuid, true, "Response body is \"\(response.body)\", not \"\(uuid)\"")
            }
        }
    }

    /// Checks what the origin received (`observations`, in order) against the test's `requests`
    /// and the `responses` the client got.
    static func checkOrigin(
        _ observations: [OriginObservation], requests: [CacheTestRequest], responses: [ReceivedResponse]
    ) throws(CacheTestCheckFailure) {
        var observationIndex = 0
        for (index, request) in requests.enumerated() {
            let number = index + 1
            let response = responses[index]
            let observation = observations.indices.contains(observationIndex) ? observations[observationIndex] : nil
            // Where the suite's engine reads a request the origin never saw, it stops with a
            // TypeError: a failure, never setup.
            func seen() throws(CacheTestCheckFailure) -> OriginObservation {
                guard let observation else {
                    throw CacheTestCheckFailure(isSetup: false, message: "Request \(number) never reached the origin")
                }
                return observation
            }
            let typeSetup = request.isSetup("expected_type")
            var validators: [String] = []
            switch request.expectedType {
            case .cached:
                continue  // the origin does not see it
            case .notCached:
                let seenNumber = try seen().requestNumber
                try require(
                    seenNumber == number, typeSetup,
                    "Response \(number) comes from cache (\(seenNumber.map(String.init) ?? "NaN") on server)")
            case .etagValidated:
                validators.append("if-none-match")
            case .lmValidated:
                validators.append("if-modified-since")
            case nil:
                break
            }
            observationIndex += 1

            for validator in validators {
                try require(observation != nil, typeSetup, "request \(number) wasn't sent to server")
                try require(try seen().headers[validator] != nil, typeSetup, "request \(number) doesn't have \(validator) header")
            }
            let presentSetup = request.isSetup("expected_request_headers")
            for expectation in request.expectedRequestHeaders {
                switch expectation {
                case .named(let name):
                    try require(try seen().headers[name.lowercased()] != nil, presentSetup, "Request \(number) \(name) header not present.")
                case .valued(let name, let value):
                    let received = try seen().headers[name.lowercased()]
                    try require(
                        received == value, presentSetup,
                        "Request \(number) header \(name) is \"\(received ?? "undefined")\", not \"\(value)\"")
                }
            }
            let missingSetup = request.isSetup("expected_request_headers_missing")
            for expectation in request.expectedRequestHeadersMissing {
                switch expectation {
                case .named(let name):
                    try require(try seen().headers[name.lowercased()] == nil, missingSetup, "Request \(number) \(name) header present.")
                case .valued(let name, let value):
                    try require(
                        try seen().headers[name.lowercased()] != value, missingSetup, "Request \(number) header \(name) is \"\(value)\"")
                }
            }
            // The headers the origin sent must reach the client (Date aside: it only causes
            // spurious failures, lib/defines.mjs).
            for (name, sent) in observation?.checkedResponseHeaders ?? [] where name.lowercased() != "date" {
                let received = response.value(of: name)
                try require(received == sent, true, "Response \(number) header \(name) is \"\(received ?? "null")\", not \"\(sent)\"")
            }
            if let method = request.expectedMethod {
                let received = try seen().method
                try require(
                    received == method, request.isSetup("expected_method"), "Request \(number) had method \(received), not \(method)")
            }
        }
    }
}
