extension Fault {
    /// What the server does for `request`: the exact bytes and closes of this fault.
    func script(for request: FaultRequest) -> [FaultStep] {
        let close = FaultClose(mode: request.query["mode"])
        let body100 = [UInt8](repeating: UInt8(ascii: "x"), count: 100)
        switch self {
        case .closeBeforeResponse:
            return [.close(close)]
        case .closeMidBody:
            let length = request.query["length"] == "0" ? "" : "Content-Length: 1000\r\n"
            return [.send(head(length) + body100), .close(close)]
        case .closeMidChunk:
            return [.send(head("Transfer-Encoding: chunked\r\n") + ascii("3e8\r\n") + body100), .close(close)]
        case .truncatedChunked:
            let chunk = ascii("64\r\n") + body100 + ascii("\r\n")
            return [.send(head("Transfer-Encoding: chunked\r\n") + chunk + chunk), .close(close)]
        case .badChunkSize:
            return [.send(head("Transfer-Encoding: chunked\r\n") + ascii("zz\r\nhello\r\n0\r\n\r\n")), .close(.fin)]
        case .stallAfterHeaders:
            return [.send(head("Content-Length: 100\r\n")), .stall]
        case .drip:
            let count = request.integer("bytes", default: 100)
            return [
                .send(head("Content-Length: \(count)\r\n")),
                .drip([UInt8](repeating: UInt8(ascii: "*"), count: count), intervalMilliseconds: request.integer("interval", default: 1000)),
            ]
        case .headerFlood:
            let value = String(repeating: "f", count: 1000)
            let headers = (0..<5000).map { "X-Flood-\($0): \(value)\r\n" }.joined()
            return [.send(head(headers + "Content-Length: 0\r\n")), .close(.fin)]
        case .hugeHeader:
            return [.send(head("X-Huge: \(String(repeating: "h", count: 200_000))\r\nContent-Length: 0\r\n")), .close(.fin)]
        case .conflictingContentLength:
            return [.send(head("Content-Length: 5\r\nContent-Length: 12\r\n") + ascii("hello world!")), .close(.fin)]
        case .overflowingContentLength:
            return [.send(head("Content-Length: 99999999999999999999\r\n") + ascii("hello")), .close(.fin)]
        case .contentLengthAndChunked:
            let headers = "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"
            return [.send(head(headers) + ascii("5\r\nhello\r\n0\r\n\r\n")), .close(.fin)]
        case .hugeContentLength:
            let start = head("Content-Length: 10737418240\r\n") + [UInt8](repeating: 0, count: 1024)
            return [.send(start), request.query["mode"] == "close" ? .close(.fin) : .stall]
        case .garbageStatusLine:
            return [.send(ascii("HTTP/1.1 OK 200\r\nContent-Length: 2\r\n\r\nok")), .close(.fin)]
        case .http09:
            return [.send(ascii("hello from HTTP/0.9\n")), .close(.fin)]
        case .status2000:
            return [.send(ascii("HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok")), .close(.fin)]
        case .bareCRInHeader:
            return [.send(head("X-Fault: a\rb\r\nContent-Length: 2\r\n") + ascii("ok")), .close(.fin)]
        case .bareLFInHeader:
            return [.send(head("X-Fault: before\nX-Smuggled: after\r\nContent-Length: 2\r\n") + ascii("ok")), .close(.fin)]
        case .nulInHeader:
            return [.send(head("X-Fault: a\0b\r\nContent-Length: 2\r\n") + ascii("ok")), .close(.fin)]
        case .endlessBody:
            return [.send(head("")), .sendForever([UInt8](repeating: UInt8(ascii: "e"), count: 64 << 10))]
        case .compressionBomb:
            let bomb = CompressionBomb(rawValue: request.query["encoding"] ?? "gzip") ?? .gzip
            let headers = "Content-Encoding: \(bomb.contentEncoding)\r\nContent-Length: \(bomb.encoded.count)\r\n"
            return [.send(head(headers) + bomb.encoded)]
        case .stackedEncodings:
            let layers = request.integer("layers", default: 6)
            var body = ascii("hello")
            for _ in 0..<layers { body = GzipMember.stored(body) }
            let encodings = Array(repeating: "gzip", count: layers).joined(separator: ", ")
            return [.send(head("Content-Encoding: \(encodings)\r\nContent-Length: \(body.count)\r\n") + body)]
        case .bombInRedirect:
            let bomb = CompressionBomb.gzip.encoded
            let headers = "Location: \(Fault.ok.path)\r\nContent-Encoding: gzip\r\nContent-Length: \(bomb.count)\r\n"
            return [.send(head(headers, status: "302 Found") + bomb)]
        case .closedWhenReused:
            guard request.indexOnConnection == 1 else { return [.close(.fin)] }
            return [.send(head("Content-Length: 5\r\n") + ascii("first"))]
        case .uncleanTLSClose:
            switch request.query["framing"] {
            case "length":
                return [.send(head("Content-Length: 100\r\n") + body100), .close(.uncleanTLS)]
            case "chunked":
                let chunk = ascii("64\r\n") + body100 + ascii("\r\n0\r\n\r\n")
                return [.send(head("Transfer-Encoding: chunked\r\n") + chunk), .close(.uncleanTLS)]
            default:
                return [.send(head("") + body100), .close(.uncleanTLS)]
            }
        case .ok:
            return [.send(head("Content-Length: 2\r\n") + ascii("ok"))]
        }
    }

    private func head(_ headers: String, status: String = "200 OK") -> [UInt8] {
        ascii("HTTP/1.1 \(status)\r\nContent-Type: application/octet-stream\r\n\(headers)\r\n")
    }

    private func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
}
