import CurlBridge
import HTTPTypes

/// The response head as `-i` prints it, like curl: the status line, the header fields, a blank line.
enum ResponseHeadText {
    static func text(_ version: HTTPVersion, _ status: HTTPResponse.Status, _ fields: HTTPFields) -> String {
        let reason = status.reasonPhrase.isEmpty ? "" : " " + status.reasonPhrase
        var text = "\(version) \(status.code)\(reason)\r\n"
        for field in fields {
            text += "\(field.name.rawName): \(field.value)\r\n"
        }
        return text + "\r\n"
    }
}
