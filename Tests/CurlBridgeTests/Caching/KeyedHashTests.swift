@testable import CurlBridge
import Testing

/// HMAC-SHA256 over length-prefixed fields, against Python's `hmac` on the same bytes.
@Suite("KeyedHash: HMAC-SHA256 of fields")
struct KeyedHashTests {
    private let jefe = KeyedHash(key: Array("Jefe".utf8))

    @Test("One field: RFC 4231's key and message, after the message's little-endian 64-bit length")
    func oneField() {
        // python3: hmac.new(b'Jefe', struct.pack('<Q', 28) + b'what do ya want for nothing?', hashlib.sha256).hexdigest()
        #expect(jefe.hex { $0.add("what do ya want for nothing?") } == "c0b77cf99718fc7f09c8727ff74305bde25761b2db20b1081cfcc82a3ec6029e")
    }

    @Test("Fields are not concatenated: ab + c is not a + bc")
    func fieldsAreDelimited() {
        let abC = jefe.hex { $0.add("ab"); $0.add("c") }
        let aBC = jefe.hex { $0.add("a"); $0.add("bc") }
        #expect(abC == "defb4d43ab831fcffb403c910d269a16591367978896741ca58b1aa166df02bd")
        #expect(aBC == "45f98e3af30ff0ca60ef73ec73a1648a05eb9124a1c240b08240d54a7a0cb488")
    }

    @Test("Another key, another digest; random keys differ")
    func keysMatter() {
        #expect(KeyedHash(key: Array("Jeff".utf8)).hex { $0.add("x") } != jefe.hex { $0.add("x") })
        #expect(KeyedHash.random().digest { $0.add("x") } != KeyedHash.random().digest { $0.add("x") })
    }
}
