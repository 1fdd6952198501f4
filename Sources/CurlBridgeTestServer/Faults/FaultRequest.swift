import Foundation

/// A request the fault server read: its request line, headers and body, and where it came on
/// its connection.
struct FaultRequest: Sendable {
    var method: String
    var path: String
    var query: [String: String]
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// 1 for the first request on its connection, 2 for the next (keep-alive), and so on.
    var indexOnConnection: Int
    /// The connection's number on this server, from 1.
    var connection: Int

    /// The `key` query parameter that groups a test's requests in the ledger ("" if absent).
    var key: String { query["key"] ?? "" }

    /// The query parameter `name` as an integer, or `fallback`.
    func integer(_ name: String, default fallback: Int) -> Int {
        query[name].flatMap { Int($0) } ?? fallback
    }

    /// Takes one complete request (head and `Content-Length` body) from the front of `bytes`, or
    /// returns `nil` if it has not all arrived yet. A head that cannot be parsed is taken as a
    /// `GET /` (the routes then answer `404`).
    static func take(from bytes: inout [UInt8], indexOnConnection: Int, connection: Int) -> FaultRequest? {
        guard let headEnd = endOfHead(bytes) else { return nil }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        guard bytes.count >= headEnd + 4 + length else { return nil }
        let body = Array(bytes[(headEnd + 4)..<(headEnd + 4 + length)])
        bytes.removeFirst(headEnd + 4 + length)
        let target = requestLine.count > 1 ? String(requestLine[1]) : "/"
        let parts = target.split(separator: "?", maxSplits: 1)
        var query: [String: String] = [:]
        for pair in parts.count > 1 ? parts[1].split(separator: "&") : [] {
            let field = pair.split(separator: "=", maxSplits: 1)
            query[String(field[0])] = field.count > 1 ? String(field[1]).removingPercentEncoding ?? String(field[1]) : ""
        }
        return FaultRequest(
            method: requestLine.first.map(String.init) ?? "GET", path: parts.first.map(String.init) ?? "/",
            query: query, headers: headers, body: body, indexOnConnection: indexOnConnection, connection: connection)
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
