import Foundation
import HTTPTypes

/// One stored response as a file of a disk cache: a magic number, the length and JSON of its
/// metadata, the body, and a 64-bit FNV-1a checksum of everything before it. A file cut short or
/// damaged fails its length or its checksum and is never served.
enum CacheEntryFile {
    static let magic = Array("CBCACHE1".utf8)
    /// The name entry files end with; anything else in the directory is not the cache's.
    static let suffix = ".cbentry"

    /// The metadata: everything but the body.
    struct Metadata: Codable, Equatable {
        var url: String
        var status: Int
        var reason: String
        var version: [Int]
        var fields: [[String]]
        var requestTime: Double
        var responseTime: Double
        var variant: [String: String]
        var bodyLength: Int

        /// What the response counts for against the cache's limit (``StoredResponse/size``).
        var responseSize: Int {
            StoredResponse.size(url: url, fields: fields.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }, bodyLength: bodyLength)
        }
    }

    /// The file name of `url`'s variant `variant`: a hash of both, so that one variant replaces
    /// its own file.
    static func name(url: String, variant: [String: String]) -> String {
        var hash = FNV1a()
        hash.add(Array(url.utf8))
        for key in variant.keys.sorted() {
            hash.add([0])
            hash.add(Array(key.utf8))
            hash.add([1])
            hash.add(Array(variant[key]!.utf8))
        }
        return String(hash.value, radix: 16) + suffix
    }

    static func metadata(of response: StoredResponse) -> Metadata {
        Metadata(
            url: response.url, status: response.status.code, reason: response.status.reasonPhrase,
            version: [response.httpVersion.major, response.httpVersion.minor],
            fields: response.headerFields.map { [$0.name.rawName, $0.value] },
            requestTime: response.requestTime.timeIntervalSince1970, responseTime: response.responseTime.timeIntervalSince1970,
            variant: response.variant, bodyLength: response.body.count)
    }

    /// The file's bytes for `response`.
    static func encode(_ response: StoredResponse) throws -> Data {
        let json = try JSONEncoder().encode(metadata(of: response))
        var data = Data(magic)
        withUnsafeBytes(of: UInt32(json.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(json)
        data.append(response.body)
        var hash = FNV1a()
        data.withUnsafeBytes { hash.add($0) }
        withUnsafeBytes(of: hash.value.littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// The metadata at the start of `prefix` (the first bytes of a file of `fileSize` bytes), or
    /// `nil` when it is not an entry or its length does not add up.
    static func metadata(prefix: Data, fileSize: Int) -> Metadata? {
        guard prefix.count >= magic.count + 4, prefix.prefix(magic.count).elementsEqual(magic) else { return nil }
        let length = prefix.dropFirst(magic.count).prefix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let start = magic.count + 4
        guard prefix.count >= start + length,
              let metadata = try? JSONDecoder().decode(Metadata.self, from: prefix.subdata(in: start..<start + length)),
              fileSize == start + length + metadata.bodyLength + 8 else { return nil }
        return metadata
    }

    /// The response a whole file holds, or `nil` when it is damaged.
    static func decode(_ data: Data) -> StoredResponse? {
        guard data.count > 8, let metadata = metadata(prefix: data, fileSize: data.count) else { return nil }
        var hash = FNV1a()
        data.withUnsafeBytes { hash.add(UnsafeRawBufferPointer(rebasing: $0[..<(data.count - 8)])) }
        let stored = data.suffix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        guard stored == hash.value, metadata.version.count == 2 else { return nil }
        var fields = HTTPFields()
        for pair in metadata.fields {
            guard pair.count == 2, let name = HTTPField.Name(pair[0]) else { return nil }
            fields.append(HTTPField(name: name, value: pair[1]))
        }
        let bodyStart = data.count - 8 - metadata.bodyLength
        return StoredResponse(
            url: metadata.url, status: HTTPResponse.Status(code: metadata.status, reasonPhrase: metadata.reason),
            headerFields: fields, httpVersion: HTTPVersion(major: metadata.version[0], minor: metadata.version[1]),
            body: data.subdata(in: bodyStart..<(data.count - 8)),
            requestTime: Date(timeIntervalSince1970: metadata.requestTime),
            responseTime: Date(timeIntervalSince1970: metadata.responseTime), variant: metadata.variant)
    }
}

/// The 64-bit FNV-1a hash: a checksum against torn and damaged files, not against an adversary.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
    }
}
