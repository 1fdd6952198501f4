#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The tree an `Encodable` value becomes before it is flattened into form pairs.
indirect enum FormNode {
    case value(String)
    case null
    case array([FormNode])
    case object([(String, FormNode)])

    /// The tree for `value`, encoded with `options`' scalar formats.
    static func encode<Value: Encodable>(_ value: Value, options: URLEncodedFormEncoder) throws -> FormNode {
        let root = FormSlot()
        try FormValueEncoder(options: options, codingPath: []).encode(value, into: root)
        return root.resolved()
    }
}

/// A place in the tree that a container fills in; a class so nested containers can share it.
final class FormSlot {
    enum Content {
        case unset
        case value(String)
        case null
        case array([FormSlot])
        case object([(String, FormSlot)])
    }

    var content = Content.unset

    func resolved() -> FormNode {
        switch content {
        case .unset, .null: .null
        case .value(let text): .value(text)
        case .array(let slots): .array(slots.map { $0.resolved() })
        case .object(let fields): .object(fields.map { ($0.0, $0.1.resolved()) })
        }
    }

    /// A new child of this keyed slot.
    func child(forKey key: String) -> FormSlot {
        let slot = FormSlot()
        if case .object(var fields) = content {
            fields.append((key, slot))
            content = .object(fields)
        } else {
            content = .object([(key, slot)])
        }
        return slot
    }

    /// A new element of this unkeyed slot.
    func appendElement() -> FormSlot {
        let slot = FormSlot()
        if case .array(var elements) = content {
            elements.append(slot)
            content = .array(elements)
        } else {
            content = .array([slot])
        }
        return slot
    }
}

/// Writes one value into a slot: scalars in the encoder's formats, anything else through its own
/// `encode(to:)`.
struct FormValueEncoder {
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]

    func encode<Value: Encodable>(_ value: Value, into slot: FormSlot) throws {
        switch value {
        case let text as String: slot.content = .value(text)
        case let flag as Bool: slot.content = .value(format(flag))
        case let date as Date: slot.content = .value(format(date))
        case let data as Data: slot.content = .value(data.base64EncodedString())
        case let url as URL: slot.content = .value(url.absoluteString)
        case let decimal as Decimal: slot.content = .value(decimal.description)
        case let number as any BinaryInteger: slot.content = .value(String(describing: number))
        case let number as any BinaryFloatingPoint: slot.content = .value(String(describing: number))
        default: try value.encode(to: FormEncoder(slot: slot, options: options, codingPath: codingPath))
        }
    }

    private func format(_ flag: Bool) -> String {
        switch options.boolEncoding {
        case .numeric: flag ? "1" : "0"
        case .literal: flag ? "true" : "false"
        }
    }

    private func format(_ date: Date) -> String {
        switch options.dateEncoding {
        case .deferredToDate: String(date.timeIntervalSinceReferenceDate)
        case .secondsSince1970: String(date.timeIntervalSince1970)
        case .millisecondsSince1970: String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        case .iso8601: date.formatted(.iso8601)
        case .custom(let format): format(date)
        }
    }
}
