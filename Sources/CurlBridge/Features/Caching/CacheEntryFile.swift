#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// One stored response as a file of a disk cache: a magic number, the length and JSON of its
/// metadata, the body, and a seal — the cache's keyed hash (``KeyedHash``) of everything before
/// it. A file cut short, damaged or forged by someone without the key fails its seal and is
/// never served; a sealed file is still checked field by field, so that nothing in a file can
/// trap the process or answer another URL, partition or variant than the one it was stored for.
enum CacheEntryFile {
    static let magic = Array("CBCACHE2".utf8)
    /// The name entry files end with; anything else in the directory is not the cache's.
    static let suffix = ".cbentry"
    /// The bytes before the metadata: the magic number and the metadata's length.
    static let headerLength = magic.count + 4
    /// The seal's length.
    static let sealLength = KeyedHash.length

    /// The metadata: everything but the body.
    struct Metadata: Codable, Equatable {
        var url: String
        var partition: String
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

        /// Whether every value is one a stored response can have: a status of 100–599, an HTTP
        /// version of single digits, times within a few thousand years of 1970, a body length
        /// that is not negative, and header fields with valid names, no more than a response can
        /// hold (``StoredResponse/maximumFieldCount``).
        var isValid: Bool {
            (100...599).contains(status) && version.count == 2 && version.allSatisfy { (0...9).contains($0) }
                && [requestTime, responseTime].allSatisfy { $0.isFinite && abs($0) < 1e11 }
                && bodyLength >= 0 && !url.isEmpty
                && fields.count <= StoredResponse.maximumFieldCount
                && fields.allSatisfy { $0.count == 2 && HTTPField.Name($0[0]) != nil }
        }
    }

    /// The file name of `url`'s variant `variant` in `partition`: a keyed hash of the three, so
    /// that one variant replaces its own file and nobody without the key can tell a name.
    static func name(url: String, partition: String, variant: [String: String], keyedHash: KeyedHash) -> String {
        keyedHash.hex { fields in
            fields.add("entry name")
            fields.add(url)
            fields.add(partition)
            for key in variant.keys.sorted() {
                fields.add(key)
                fields.add(variant[key]!)
            }
        } + suffix
    }

    static func metadata(of response: StoredResponse) -> Metadata {
        Metadata(
            url: response.url, partition: response.partition, status: response.status.code, reason: response.status.reasonPhrase,
            version: [response.httpVersion.major, response.httpVersion.minor],
            fields: response.headerFields.map { [$0.name.rawName, $0.value] },
            requestTime: response.requestTime.timeIntervalSince1970, responseTime: response.responseTime.timeIntervalSince1970,
            variant: response.variant, bodyLength: response.body.count)
    }

    /// The file's bytes for `response`, sealed with `keyedHash`.
    static func encode(_ response: StoredResponse, keyedHash: KeyedHash) throws -> Data {
        let json = try JSONEncoder().encode(metadata(of: response))
        var data = Data(magic)
        withUnsafeBytes(of: UInt32(json.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(json)
        data.append(response.body)
        data.append(contentsOf: seal(data, keyedHash: keyedHash))
        return data
    }

    /// The seal of `bytes`.
    static func seal(_ bytes: some Collection<UInt8>, keyedHash: KeyedHash) -> [UInt8] {
        keyedHash.digest { fields in
            fields.add("entry")
            fields.add(bytes)
        }
    }

    /// The metadata at the start of `prefix` (the first bytes of a file of `fileSize` bytes), or
    /// `nil` when it is not an entry, a value is invalid or its lengths do not add up. The seal
    /// is not checked: this is how a store indexes its files when it opens, and
    /// ``decode(_:keyedHash:)`` checks it before anything is served.
    static func metadata(prefix: Data, fileSize: Int) -> Metadata? {
        guard prefix.count >= headerLength, fileSize >= headerLength + sealLength,
              prefix.prefix(magic.count).elementsEqual(magic) else { return nil }
        let length = prefix.dropFirst(magic.count).prefix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        // Each bound checked by subtraction from the file's size: no sum can overflow.
        guard length <= fileSize - headerLength - sealLength, prefix.count - headerLength >= length,
              let metadata = try? JSONDecoder().decode(Metadata.self, from: prefix.dropFirst(headerLength).prefix(length)),
              metadata.isValid, metadata.bodyLength == fileSize - headerLength - length - sealLength
        else { return nil }
        return metadata
    }

    /// The response a whole file holds, or `nil` when it is damaged, forged (its seal is not
    /// `keyedHash`'s) or holds a value no stored response can have.
    static func decode(_ data: Data, keyedHash: KeyedHash) -> StoredResponse? {
        guard let metadata = metadata(prefix: data, fileSize: data.count),
              data.suffix(sealLength).elementsEqual(seal(data.dropLast(sealLength), keyedHash: keyedHash))
        else { return nil }
        var fields = HTTPFields()
        for pair in metadata.fields {
            guard let name = HTTPField.Name(pair[0]) else { return nil }
            fields.append(HTTPField(name: name, value: pair[1]))
        }
        return StoredResponse(
            url: metadata.url, partition: metadata.partition,
            status: HTTPResponse.Status(code: metadata.status, reasonPhrase: metadata.reason),
            headerFields: fields, httpVersion: HTTPVersion(major: metadata.version[0], minor: metadata.version[1]),
            body: Data(data.dropLast(sealLength).suffix(metadata.bodyLength)),
            requestTime: Date(timeIntervalSince1970: metadata.requestTime),
            responseTime: Date(timeIntervalSince1970: metadata.responseTime), variant: metadata.variant)
    }
}
