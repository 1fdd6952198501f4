import Foundation
import FuzzSupport
@testable import CurlBridge

/// `URLEncodedFormEncoder` over a fuzzed tree of strings, numbers, booleans, nils, arrays and
/// keyed objects, with fuzzed options.
///
/// Invariants: a non-keyed top level is refused with `EncodingError.invalidValue`; otherwise the
/// output holds only unreserved characters, `%XX`, `=`, `&` (and `+` in plus mode), and decoding it
/// gives back exactly the pairs the tree describes — bracketed names as `arrayEncoding` says,
/// booleans as `boolEncoding` says, nils as `nilEncoding` says — byte for byte, in the tree's
/// order or stably sorted by name.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzForm(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let encoder = URLEncodedFormEncoder(
        arrayEncoding: input.pick([.brackets, .noBrackets, .indexInBrackets]),
        boolEncoding: input.pick([.numeric, .literal]),
        nilEncoding: input.pick([.dropKey, .empty]),
        spaceEncoding: input.pick([.percentEscaped, .plus]),
        sortsKeys: input.flag())
    var budget = 40
    let value = FormValue.read(from: &input, depth: 0, budget: &budget)
    let output: String
    do {
        output = try encoder.encode(value)
    } catch EncodingError.invalidValue {
        guard case .object = value else { return 0 }
        require(false, "a keyed top level was refused")
        return 0
    } catch {
        require(false, "unexpected error \(error)")
        return 0
    }
    guard case .object(let fields) = value else {
        require(false, "a non-keyed top level \(value) was encoded as \(output.debugDescription)")
        return 0
    }
    let plus = encoder.spaceEncoding == .plus
    let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%=&".utf8).union(plus ? [UInt8(ascii: "+")] : [])
    require(output.utf8.allSatisfy(allowed.contains), "output \(output.debugDescription) holds a byte that needs encoding")
    var expected: [(String, String)] = []
    for (key, child) in fields { child.flatten(name: key, encoder: encoder, into: &expected) }
    if encoder.sortsKeys {
        expected = expected.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element)
    }
    let pairs = output.isEmpty ? [] : output.split(separator: "&", omittingEmptySubsequences: false)
    let decoded: [([UInt8], [UInt8])] = pairs.map { pair in
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        require(parts.count == 2, "pair \(pair) has no =")
        return (percentDecoded(parts[0], plus: plus), percentDecoded(parts.count == 2 ? parts[1] : "", plus: plus))
    }
    require(decoded.count == expected.count, "\(decoded.count) pairs decoded, \(expected.count) expected from \(output.debugDescription)")
    for ((name, text), (wantedName, wantedText)) in zip(decoded, expected) {
        require(name == Array(wantedName.utf8) && text == Array(wantedText.utf8),
                "decoded \(String(decoding: name, as: UTF8.self))=\(String(decoding: text, as: UTF8.self)), expected \(wantedName)=\(wantedText)")
    }
    return 0
}

/// The bytes `%XX` escapes (and `+`, in plus mode) stand for; a malformed escape stops the run.
private func percentDecoded(_ text: Substring, plus: Bool) -> [UInt8] {
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
        if byte == UInt8(ascii: "%") {
            let digits = [iterator.next(), iterator.next()].compactMap { $0 }
            let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16)
            require(digits.count == 2 && value != nil, "malformed escape in \(text)")
            bytes.append(value ?? 0)
        } else {
            bytes.append(plus && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
        }
    }
    return bytes
}

/// A fuzzed `Encodable` tree.
indirect enum FormValue: Encodable, CustomStringConvertible {
    case text(String)
    case integer(Int)
    case boolean(Bool)
    case null
    case array([FormValue])
    case object([(String, FormValue)])

    static func read(from input: inout FuzzInput, depth: Int, budget: inout Int) -> FormValue {
        budget -= 1
        let kind = depth == 0 ? input.number(in: 0...6) : input.number(in: 0...5)
        switch kind {
        case 0: return .text(input.string())
        case 1: return .integer(input.number(in: -100_000...100_000))
        case 2: return .boolean(input.flag())
        case 3: return .null
        case 4:
            guard depth < 4, budget > 0 else { return .null }
            return .array((0..<input.number(in: 0...3)).map { _ in read(from: &input, depth: depth + 1, budget: &budget) })
        default:
            guard depth < 4, budget > 0 else { return .null }
            var fields: [(String, FormValue)] = []
            for _ in 0..<input.number(in: 0...4) {
                let key = input.string()
                let child = read(from: &input, depth: depth + 1, budget: &budget)
                if !fields.contains(where: { $0.0 == key }) { fields.append((key, child)) }
            }
            return .object(fields)
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .text(let text): var container = encoder.singleValueContainer(); try container.encode(text)
        case .integer(let number): var container = encoder.singleValueContainer(); try container.encode(number)
        case .boolean(let flag): var container = encoder.singleValueContainer(); try container.encode(flag)
        case .null: var container = encoder.singleValueContainer(); try container.encodeNil()
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let fields):
            var container = encoder.container(keyedBy: Key.self)
            for (key, child) in fields { try container.encode(child, forKey: Key(stringValue: key)) }
        }
    }

    /// The pairs this node stands for, as the encoder's documentation describes them.
    func flatten(name: String, encoder: URLEncodedFormEncoder, into pairs: inout [(String, String)]) {
        switch self {
        case .text(let text): pairs.append((name, text))
        case .integer(let number): pairs.append((name, String(number)))
        case .boolean(let flag): pairs.append((name, encoder.boolEncoding == .numeric ? (flag ? "1" : "0") : String(flag)))
        case .null: if encoder.nilEncoding == .empty { pairs.append((name, "")) }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                let elementName = switch encoder.arrayEncoding {
                case .brackets: name + "[]"
                case .noBrackets: name
                case .indexInBrackets: "\(name)[\(index)]"
                }
                element.flatten(name: elementName, encoder: encoder, into: &pairs)
            }
        case .object(let fields):
            for (key, child) in fields { child.flatten(name: "\(name)[\(key)]", encoder: encoder, into: &pairs) }
        }
    }

    var description: String {
        switch self {
        case .text(let text): text.debugDescription
        case .integer(let number): String(number)
        case .boolean(let flag): String(flag)
        case .null: "nil"
        case .array(let elements): "\(elements)"
        case .object(let fields): "\(fields)"
        }
    }

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
