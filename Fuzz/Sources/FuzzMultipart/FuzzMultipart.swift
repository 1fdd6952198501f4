import CurlBridge
import Foundation
import FuzzSupport

/// The multipart encoder end to end: a fuzzed `MultipartForm` (text and data parts with fuzzed
/// names, bytes, filenames and content types) sent to a loopback peer through a real transfer,
/// since libcurl's MIME API writes the body.
///
/// Invariants: a name, filename or content type holding CR, LF or NUL is refused with
/// `invalidHeader` before anything is sent; any other form is sent once, and the body the peer
/// receives is exactly the RFC 7578 encoding of the parts — every part's bytes intact and in order,
/// names and filenames quoted with `"`, CR and LF escaped as curl does (`%22`, `%0D`, `%0A`), no
/// header line of one part able to end early or add another.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    var form = MultipartForm()
    var refused = false
    for _ in 0..<input.number(in: 0...4) {
        let name = input.string()
        if input.flag() {
            let value = input.string()
            form = form.text(name, value)
            refused = refused || name.hasLineBreakingByte
        } else {
            let bytes = Data(input.bytes())
            let filename = input.optionalString()
            let contentType = input.optionalString()
            form = form.data(name, bytes, filename: filename, contentType: contentType)
            refused = refused || name.hasLineBreakingByte || (filename?.hasLineBreakingByte ?? false)
                || (contentType?.hasLineBreakingByte ?? false)
        }
    }
    peer.answer(with: Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
    let result = client.send(Request.post("http://127.0.0.1:\(peer.port)/upload").multipart(form))
    let requests = peer.requests
    if refused {
        guard case .failure(let error) = result else {
            require(false, "a form with CR, LF or NUL in a part's name, filename or type was sent")
            return 0
        }
        require(error.code == .invalidHeader, "expected invalidHeader, got \(error.code): \(error)")
        require(requests.isEmpty, "a refused form reached the peer")
        return 0
    }
    guard case .success(let response) = result else {
        require(false, "the form was not sent: \(result)")
        return 0
    }
    require(response.status.code == 200 && requests.count == 1, "status \(response.status.code), \(requests.count) requests received")
    guard let request = requests.first, let headEnd = LoopbackPeer.headEnd(request) else {
        require(false, "the peer received no complete request")
        return 0
    }
    let head = String(decoding: request[..<headEnd], as: UTF8.self)
    let marker = "content-type: multipart/form-data; boundary="
    guard let typeLine = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix(marker) }) else {
        require(false, "no multipart Content-Type in \(head.debugDescription)")
        return 0
    }
    let boundary = String(typeLine.dropFirst(marker.count))
    let body = Array(request[headEnd...])
    let expected = encoding(of: form, boundary: boundary)
    require(body == expected, """
        the body differs from the parts' encoding
        received: \(String(decoding: body, as: UTF8.self).debugDescription)
        expected: \(String(decoding: expected, as: UTF8.self).debugDescription)
        """)
    return 0
}

private let peer = LoopbackPeer()
private let client = OneShotClient(configuration: Configuration(timeouts: Timeouts(total: .seconds(10))))

/// RFC 7578 as libcurl 7.88 writes it for HTTP forms.
private func encoding(of form: MultipartForm, boundary: String) -> [UInt8] {
    var bytes: [UInt8] = []
    func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22")
    }
    for part in form.parts {
        bytes += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(escaped(part.name))\"".utf8)
        if let filename = part.filename { bytes += Array("; filename=\"\(escaped(filename))\"".utf8) }
        bytes += Array("\r\n".utf8)
        if let type = part.contentType { bytes += Array("Content-Type: \(type)\r\n".utf8) }
        bytes += Array("\r\n".utf8)
        switch part.content {
        case .text(let text): bytes += Array(text.utf8)
        case .data(let data): bytes += Array(data)
        case .file: break
        }
        bytes += Array("\r\n".utf8)
    }
    bytes += Array("--\(boundary)--\r\n".utf8)
    return bytes
}
