import Foundation
import FuzzSupport
import HTTPTypes
@testable import CurlBridge

/// A disk cache's entry file (format 2: magic, metadata length, JSON metadata, body, an
/// HMAC-SHA256 seal under the cache's key): `CacheEntryFile.metadata(prefix:fileSize:)`, which
/// indexes a directory, and `CacheEntryFile.decode(_:keyedHash:)`, which reads an entry before it
/// is served. The first field picks how the file is made:
/// 0. raw fuzzed bytes, as a damaged disk returns them (never sealed);
/// 1. fuzzed bytes sealed with the cache's key: framing and JSON as written by someone holding
///    the key, so the value checks behind the seal are reached;
/// 2. metadata from fuzzed values (status, version, header fields, times, variant, body length,
///    any number of fields), encoded as JSON, framed and sealed with the key;
/// 3. a valid entry of a fuzzed response with fuzzed byte flips, then cut short or extended.
///
/// Invariants: nothing traps. Whatever `decode` returns has a status in 100...599, a body as
/// long as its metadata says, valid field names, finite times, and re-encodes with the key to a
/// file that decodes to an equal response; `decode` returns a response exactly when
/// `metadata(prefix:fileSize:)` of the whole file does and the seal is the key's; a prefix of
/// the file gives that metadata or nothing; a metadata's lengths add up to the file's size. A
/// valid entry decodes to the response it was made of, and any change to its bytes makes
/// `decode` return nil (the seal).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    switch input.number(in: 0...3) {
    case 0:
        let file = Data(input.bytes())
        let prefixLength = input.number(in: 0...(file.count + 64))
        // The index reads a prefix of a file that may be longer than the bytes it got.
        let fileSize = input.pick([file.count, file.count + input.number(in: 0...(1 << 40)), Int.max])
        checkMetadata(of: file, prefixLength: prefixLength, fileSize: fileSize)
        check(file, prefixLength: prefixLength)
    case 1:
        let content = input.bytes()
        check(Data(content + CacheEntryFile.seal(content, keyedHash: key)), prefixLength: input.number(in: 0...(content.count + 64)))
    case 2:
        guard let file = sealedFile(of: &input) else { return 0 }
        check(file, prefixLength: input.number(in: 0...(file.count + 64)))
    default:
        checkEdited(&input)
    }
    return 0
}

/// The cache's key: fixed, so the fuzzer can get past the seal by making it.
private let key = KeyedHash(key: Array(0..<32))

/// A file of metadata made of fuzzed values, and a fuzzed body, sealed with the key; `nil` when
/// JSON cannot hold a value (a time that is not finite).
private func sealedFile(of input: inout FuzzInput) -> Data? {
    let body = Data(input.bytes())
    var metadata = CacheEntryFile.Metadata(
        url: input.string(), partition: input.string(), status: input.number(in: -1_000...1_999), reason: input.string(),
        version: [input.number(in: -2...12), input.number(in: -2...12)],
        fields: FieldLines.pairs(input.bytes()).map { [String(decoding: $0.name, as: UTF8.self), String(decoding: $0.value, as: UTF8.self)] },
        requestTime: input.double(), responseTime: input.double(),
        variant: Dictionary(FieldLines.pairs(input.bytes()).map { (String(decoding: $0.name, as: UTF8.self), String(decoding: $0.value, as: UTF8.self)) }) { first, _ in first },
        bodyLength: body.count + input.number(in: -3...3))
    if input.flag() { metadata.version.append(1) }
    guard let json = try? JSONEncoder().encode(metadata) else { return nil }
    var file = Data(CacheEntryFile.magic)
    withUnsafeBytes(of: UInt32(json.count).littleEndian) { file.append(contentsOf: $0) }
    file.append(json)
    file.append(body)
    file.append(contentsOf: CacheEntryFile.seal(file, keyedHash: key))
    return file
}

/// `decode` of `file` and what it returns, against `metadata(prefix:fileSize:)` of the whole file
/// and of its first `prefixLength` bytes.
private func check(_ file: Data, prefixLength: Int) {
    let decoded = CacheEntryFile.decode(file, keyedHash: key)
    let metadata = checkMetadata(of: file, prefixLength: prefixLength, fileSize: file.count)
    let sealed = file.count >= CacheEntryFile.sealLength
        && file.suffix(CacheEntryFile.sealLength).elementsEqual(CacheEntryFile.seal(file.dropLast(CacheEntryFile.sealLength), keyedHash: key))
    require((decoded != nil) == (metadata != nil && sealed),
            "decode gave \(decoded == nil ? "nothing" : "a response") where the metadata is \(metadata == nil ? "missing" : "valid") and the seal \(sealed ? "matches" : "does not")")
    guard let decoded, let metadata else { return }
    require((100...599).contains(decoded.status.code), "decoded status \(decoded.status.code)")
    require(decoded.body.count == metadata.bodyLength, "a \(decoded.body.count)-byte body where the metadata says \(metadata.bodyLength)")
    for field in decoded.headerFields {
        require(field.name.rawName.isHTTPToken, "decoded field name \(field.name.rawName.debugDescription)")
    }
    for time in [decoded.requestTime, decoded.responseTime] {
        require(time.timeIntervalSince1970.isFinite, "decoded time \(time.timeIntervalSince1970)")
    }
    require(decoded.url == metadata.url && decoded.partition == metadata.partition && decoded.variant == metadata.variant
            && decoded.status.code == metadata.status && decoded.headerFields.count == metadata.fields.count,
            "decode and metadata(prefix:fileSize:) disagree: \(decoded) against \(metadata)")
    guard let encoded = try? CacheEntryFile.encode(decoded, keyedHash: key) else {
        require(false, "a decoded response cannot be encoded again: \(decoded)")
        return
    }
    let again = CacheEntryFile.decode(encoded, keyedHash: key)
    require(again == decoded, "re-encoded, \(decoded) decodes to \(String(describing: again))")
}

/// `metadata(prefix:fileSize:)` of `file` (whose size the store says is `fileSize`), whole and its
/// first `prefixLength` bytes; what the whole file gives.
@discardableResult
private func checkMetadata(of file: Data, prefixLength: Int, fileSize: Int) -> CacheEntryFile.Metadata? {
    let whole = CacheEntryFile.metadata(prefix: file, fileSize: fileSize)
    let prefix = CacheEntryFile.metadata(prefix: file.prefix(prefixLength), fileSize: fileSize)
    require(prefix == nil || prefix == whole, "a prefix of \(prefixLength) bytes gives other metadata than the whole file")
    guard let metadata = whole else { return nil }
    let jsonLength = file.dropFirst(CacheEntryFile.magic.count).prefix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
    require(prefixLength < CacheEntryFile.headerLength + jsonLength || prefix != nil,
            "a prefix of \(prefixLength) bytes holds the \(jsonLength)-byte metadata but gives none")
    require(metadata.isValid && metadata.bodyLength >= 0
            && CacheEntryFile.headerLength + jsonLength + metadata.bodyLength + CacheEntryFile.sealLength == fileSize,
            "metadata whose lengths (\(jsonLength), \(metadata.bodyLength)) do not add up to \(fileSize) bytes")
    // What the index does with it: a name and a size (which cannot overflow: the file holds them).
    _ = CacheEntryFile.name(url: metadata.url, partition: metadata.partition, variant: metadata.variant, keyedHash: key)
    require(metadata.responseSize >= 0, "response size \(metadata.responseSize)")
    return metadata
}

/// A valid entry of a fuzzed response decodes to it; with any byte changed, cut short or
/// extended, it decodes to nothing.
private func checkEdited(_ input: inout FuzzInput) {
    let fields = FieldLines.fields(input.bytes())
    let response = StoredResponse(
        url: "https://a.example/" + input.string(), partition: input.string(),
        status: HTTPResponse.Status(code: input.number(in: 100...599), reasonPhrase: input.string()), headerFields: fields,
        httpVersion: input.pick([.http1_1, .http2, HTTPVersion(major: 1, minor: 0)]), body: Data(input.bytes()),
        requestTime: Date(timeIntervalSince1970: finite(input.double())), responseTime: Date(timeIntervalSince1970: finite(input.double())),
        variant: Dictionary(FieldLines.pairs(input.bytes()).map { (String(decoding: $0.name, as: UTF8.self), String(decoding: $0.value, as: UTF8.self)) }) { first, _ in first })
    guard let original = try? CacheEntryFile.encode(response, keyedHash: key) else {
        require(false, "\(response) cannot be encoded")
        return
    }
    require(CacheEntryFile.decode(original, keyedHash: key) == response, "\(response) does not decode to itself")
    var edited = original
    // Flips: each three bytes an offset (two bytes) and a non-zero mask.
    let flips = input.bytes()
    for start in stride(from: 0, to: flips.count - 2, by: 3) where !edited.isEmpty {
        let offset = (Int(flips[start]) | Int(flips[start + 1]) << 8) % edited.count
        edited[offset] ^= max(1, flips[start + 2])
    }
    edited = edited.prefix(edited.count - input.number(in: 0...min(edited.count, 64)))
    edited.append(contentsOf: input.bytes())
    let decoded = CacheEntryFile.decode(edited, keyedHash: key)
    require(edited == original || decoded == nil, "an entry changed in its bytes still decodes: \(String(describing: decoded))")
    check(edited, prefixLength: input.number(in: 0...(edited.count + 64)))
}

/// `value` when finite and within the times an entry may hold (|t| < 1e11 s), else 0.
private func finite(_ value: Double) -> Double {
    value.isFinite && abs(value) < 1e11 ? value : 0
}
