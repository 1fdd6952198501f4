import CurlBridge
import Foundation
import HTTPTypes

extension TransferOptions {
    /// The request for one URL: the method, the `-H` headers, `-u`'s credentials, the body of `-d`,
    /// `--json` or `-F`, and the timeouts. Bodies from files stream from disk; a missing file fails at send time
    /// (``ExitStatus/fileError``).
    func request(_ method: HTTPRequest.Method, _ url: String) -> Request {
        var request = Request(method: method, url: url)
        for header in headers.compactMap(HeaderLine.init) {
            request = request.header(header.name, header.value)
        }
        if let credential { request = request.credential(credential) }
        request = request.allowingCredentialsOverPlainHTTP(allowsPlainHTTPCredentials)
        if let data {
            request = Self.body(of: request, data, contentType: "application/x-www-form-urlencoded")
        } else if let json {
            request = Self.body(of: request, json, contentType: "application/json")
            if request.headerFields[.accept] == nil { request = request.header("Accept", "application/json") }
        } else if !formFields.isEmpty {
            request = request.multipart(multipartForm)
        }
        return request.timeout(connect: connectTimeout.map(Duration.seconds), total: maximumTime.map(Duration.seconds))
    }

    /// `-u user:password` as HTTP Basic credentials.
    var credential: Credential? {
        guard let user, let colon = user.firstIndex(of: ":") else { return nil }
        return .basic(username: String(user[..<colon]), password: String(user[user.index(after: colon)...]))
    }

    /// `argument` as the body: the file it names after `@`, or its own UTF-8 bytes.
    private static func body(of request: Request, _ argument: String, contentType: String) -> Request {
        guard argument.hasPrefix("@") else { return request.body(Data(argument.utf8), contentType: contentType) }
        return request.body(fileAt: URL(fileURLWithPath: String(argument.dropFirst())), contentType: contentType)
    }

    /// The `-F` fields as a multipart form.
    private var multipartForm: MultipartForm {
        formFields.compactMap(FormField.init).reduce(MultipartForm()) { form, field in
            switch field {
            case .text(let name, let value): form.text(name, value)
            case .file(let name, let path, let type): form.file(name, at: URL(fileURLWithPath: path), contentType: type)
            }
        }
    }
}
