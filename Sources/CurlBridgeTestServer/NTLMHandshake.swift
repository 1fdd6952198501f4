import Foundation
import NIOConcurrencyHelpers
import NIOHTTP1

/// The server side of NTLM's three messages, checked for form only: enough to see that a client
/// runs the handshake on one connection and names the right user (no password is verified).
enum NTLMHandshake {
    /// Connections whose client sent a type-1 (negotiate) message.
    private static let negotiated = NIOLockedValueBox<Set<Int>>([])

    /// The fixed type-2 (challenge) message: Unicode and NTLM flags, a fixed challenge, no target
    /// name and no target information.
    private static let challenge: Data = {
        var message = Data("NTLMSSP\0".utf8)
        message += littleEndian(UInt32(2))  // message type
        message += littleEndian(UInt16(0)) + littleEndian(UInt16(0)) + littleEndian(UInt32(48))  // target name
        message += littleEndian(UInt32(0x0000_0201))  // NEGOTIATE_UNICODE | NEGOTIATE_NTLM
        message += Data([0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef])  // server challenge
        message += Data(count: 8)  // context
        message += littleEndian(UInt16(0)) + littleEndian(UInt16(0)) + littleEndian(UInt32(48))  // target info
        return message
    }()

    static func response(to request: ReceivedRequest, username: String) -> CompleteResponse {
        guard let header = request.head.headers["Authorization"].first, header.hasPrefix("NTLM "),
              let message = Data(base64Encoded: String(header.dropFirst(5))),
              message.count >= 12, message.prefix(8) == Data("NTLMSSP\0".utf8)
        else { return AuthRoutes.unauthorized(challenge: "NTLM") }
        switch integer(message, at: 8, size: 4) {
        case 1:
            negotiated.withLockedValue { _ = $0.insert(request.connectionID) }
            return AuthRoutes.unauthorized(challenge: "NTLM " + challenge.base64EncodedString())
        case 3 where userName(in: message) == username:
            var reply = CompleteResponse.json(EchoReply(describing: request))
            let sawType1 = negotiated.withLockedValue { $0.remove(request.connectionID) != nil }
            reply.headers.add(name: "X-NTLM-Type1-Seen", value: sawType1 ? "yes" : "no")
            return reply
        default:
            return AuthRoutes.unauthorized(challenge: "NTLM")
        }
    }

    /// The user name of a type-3 message (UTF-16LE when it sets NEGOTIATE_UNICODE), or `nil`.
    private static func userName(in message: Data) -> String? {
        guard message.count >= 64,
              let length = integer(message, at: 36, size: 2), let offset = integer(message, at: 40, size: 4),
              let flags = integer(message, at: 60, size: 4), offset + length <= message.count
        else { return nil }
        let bytes = message.subdata(in: message.startIndex + offset..<message.startIndex + offset + length)
        return String(data: bytes, encoding: flags & 1 != 0 ? .utf16LittleEndian : .utf8)
    }

    /// The little-endian unsigned integer of `size` bytes at `offset`, or `nil` past the end.
    private static func integer(_ data: Data, at offset: Int, size: Int) -> Int? {
        guard offset + size <= data.count else { return nil }
        return (0..<size).reduce(0) { $0 | Int(data[data.startIndex + offset + $1]) << (8 * $1) }
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> Data {
        withUnsafeBytes(of: value.littleEndian) { Data($0) }
    }
}
