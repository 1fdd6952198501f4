/// The `Encoder` behind ``URLEncodedFormEncoder``: its containers fill ``FormSlot``s.
struct FormEncoder: Encoder {
    let slot: FormSlot
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = slot.content {} else { slot.content = .object([]) }
        return KeyedEncodingContainer(FormKeyedContainer<Key>(slot: slot, options: options, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = slot.content {} else { slot.content = .array([]) }
        return FormUnkeyedContainer(slot: slot, options: options, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FormSingleValueContainer(slot: slot, options: options, codingPath: codingPath)
    }
}

/// Keyed values: `name[key]=…`.
struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: FormSlot
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        slot.child(forKey: key.stringValue).content = .null
    }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try FormValueEncoder(options: options, codingPath: codingPath + [key]).encode(value, into: slot.child(forKey: key.stringValue))
    }

    // Synthesized `Encodable` skips `nil` optionals through these; `NilEncoding.empty` keeps them.
    mutating func encodeIfPresent<Value: Encodable>(_ value: Value?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else if options.nilEncoding == .empty { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, key) }

    private mutating func encodeOptional<Value: Encodable>(_ value: Value?, _ key: Key) throws {
        try encodeIfPresent(value, forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        FormEncoder(slot: slot.child(forKey: key.stringValue), options: options, codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        FormEncoder(slot: slot.child(forKey: key.stringValue), options: options, codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        FormEncoder(slot: slot.child(forKey: "super"), options: options, codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        FormEncoder(slot: slot.child(forKey: key.stringValue), options: options, codingPath: codingPath + [key])
    }
}

/// Array elements.
struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let slot: FormSlot
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(slot: FormSlot, options: URLEncodedFormEncoder, codingPath: [any CodingKey]) {
        self.slot = slot
        self.options = options
        self.codingPath = codingPath
    }

    mutating func encodeNil() throws {
        slot.appendElement().content = .null
        count += 1
    }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try FormValueEncoder(options: options, codingPath: codingPath).encode(value, into: slot.appendElement())
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        count += 1
        return FormEncoder(slot: slot.appendElement(), options: options, codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return FormEncoder(slot: slot.appendElement(), options: options, codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        count += 1
        return FormEncoder(slot: slot.appendElement(), options: options, codingPath: codingPath)
    }
}

/// A single value.
struct FormSingleValueContainer: SingleValueEncodingContainer {
    let slot: FormSlot
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws {
        slot.content = .null
    }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try FormValueEncoder(options: options, codingPath: codingPath).encode(value, into: slot)
    }
}
