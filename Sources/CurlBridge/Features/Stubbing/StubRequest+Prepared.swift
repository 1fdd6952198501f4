#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

extension StubRequest {
    /// What a stub receives for `request`, its body read whole; a body that cannot be read (a
    /// missing file, a failing or already-sent stream) fails as it would on the network.
    static func received(_ request: PreparedRequest) async -> Result<StubRequest, RequestError> {
        var received = StubRequest(method: request.method, url: request.url, headerFields: fields(request.headerLines))
        switch request.body {
        case nil:
            break
        case .bytes(let data)?:
            received.body = data
        case .multipart(let form)?:
            received.multipartForm = form
        case .file(let url)?:
            do {
                received.body = try Data(contentsOf: url)
            } catch {
                return .failure(RequestError(
                    .fileIO, "could not read the body file \(url.path): \(error.fileErrorText)",
                    method: request.method, url: request.url, underlying: error))
            }
        case .stream(let stream)?:
            switch await stream.readToEnd() {
            case .success(let data): received.body = data
            case .failure(let error): return .failure(error)
            }
        }
        return .success(received)
    }

    /// Header fields from curl's header lines: `"Name: value"`, `"Name;"` for an empty value; a
    /// bare `"Name:"` removes a header curl would add, so it is not a field.
    private static func fields(_ lines: [String]) -> HTTPFields {
        var fields = HTTPFields()
        for line in lines {
            if line.hasSuffix(";"), !line.contains(":"), let name = HTTPField.Name(String(line.dropLast())) {
                fields.append(HTTPField(name: name, value: ""))
                continue
            }
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
            let value = line[line.index(after: colon)...].drop(while: { $0 == " " })
            guard !value.isEmpty else { continue }
            fields.append(HTTPField(name: name, value: String(value)))
        }
        return fields
    }
}

extension BodyStream {
    /// Starts the stream and reads it to its end, for a stub that takes the whole body.
    func readToEnd() async -> Result<Data, RequestError> {
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        guard start(wake: { wake.yield() }) else {
            return .failure(RequestError(.bodyNotRewindable, "the body stream was already sent once"))
        }
        defer { close() }
        var waiting = wakes.makeAsyncIterator()
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let result = buffer.withUnsafeMutableBytes { read(into: $0) }
            switch result {
            case .bytes(let count): data.append(contentsOf: buffer[..<count])
            case .pause:
                // `nil` only when the stub's task was cancelled: its request was.
                guard await waiting.next() != nil else {
                    return .failure(RequestError(.cancelled, "the request was cancelled"))
                }
            case .end: return .success(data)
            case .fail(let error): return .failure(error)
            }
        }
    }
}
