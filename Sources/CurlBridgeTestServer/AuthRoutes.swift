import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The authentication routes; each answers the ``EchoReply`` of the request once it proves the
/// credential in its path, and otherwise `401` with a challenge and a `text/plain` body
/// `unauthorized` (which a client that answers the challenge must drop):
/// - `/basic-auth/USER/PASSWORD`: HTTP Basic (RFC 7617), the credential compared as UTF-8 with the
///   percent-decoded path segments.
/// - `/bearer-auth/TOKEN`: `Authorization: Bearer TOKEN`.
/// - `/digest-auth/USER/PASSWORD?algorithm=MD5|SHA-256&stale-once=1`: HTTP Digest (RFC 7616,
///   `qop=auth`, MD5 by default); the response is verified against a nonce this server issued and
///   the request's method and target. With `stale-once=1` the first correct answer still gets a
///   `401` with a new nonce and `stale=true`, so the client must send the request (and its body)
///   once more.
/// - `/ntlm-auth/USER`: the NTLM handshake's messages, checked for form only (no password check):
///   no `NTLM` authorization → `401` `WWW-Authenticate: NTLM`; a type-1 message → `401` with a
///   type-2 challenge; a type-3 message whose user name is `USER` → the echo, with
///   `X-NTLM-Type1-Seen: yes` when a type-1 came on the same connection.
enum AuthRoutes {
    /// The realm of the Basic and Digest challenges.
    static let realm = "curlbridge-test"

    /// The plan for `request` when its path is an authentication route, else `nil`.
    static func plan(for request: ReceivedRequest) -> ResponsePlan? {
        let segments = request.path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        switch (segments.first, segments.count) {
        case ("basic-auth", 3):
            return .complete(basic(request, username: segments[1], password: segments[2]))
        case ("bearer-auth", 2):
            let accepted = request.head.headers["Authorization"] == ["Bearer " + segments[1]]
            return .complete(accepted ? .json(EchoReply(describing: request)) : unauthorized(challenge: "Bearer realm=\"\(realm)\""))
        case ("digest-auth", 3):
            return .complete(DigestAuthentication.response(to: request, username: segments[1], password: segments[2]))
        case ("ntlm-auth", 2):
            return .complete(NTLMHandshake.response(to: request, username: segments[1]))
        default:
            return nil
        }
    }

    /// `401` with `WWW-Authenticate: challenge` and the body `unauthorized`.
    static func unauthorized(challenge: String) -> CompleteResponse {
        var response = CompleteResponse.text(.unauthorized, "unauthorized")
        response.headers.add(name: "WWW-Authenticate", value: challenge)
        return response
    }

    private static func basic(_ request: ReceivedRequest, username: String, password: String) -> CompleteResponse {
        let expected = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        guard request.head.headers["Authorization"] == [expected] else {
            return unauthorized(challenge: "Basic realm=\"\(realm)\", charset=\"UTF-8\"")
        }
        return .json(EchoReply(describing: request))
    }
}

/// HTTP Digest (RFC 7616) as a server checks it.
enum DigestAuthentication {
    /// Nonces this server has issued, each with whether its first correct use is answered `stale`.
    private static let issued = NIOLockedValueBox<[String: Bool]>([:])

    static func response(to request: ReceivedRequest, username: String, password: String) -> CompleteResponse {
        let algorithm = request.queryParameters["algorithm"] ?? "MD5"
        guard algorithm == "MD5" || algorithm == "SHA-256" else {
            return .badRequest("algorithm must be MD5 or SHA-256")
        }
        var stale = false
        if let header = request.head.headers["Authorization"].first, header.hasPrefix("Digest ") {
            let answer = parameters(of: header.dropFirst(7))
            if verify(answer, request: request, username: username, password: password, algorithm: algorithm) {
                stale = issued.withLockedValue { $0.updateValue(false, forKey: answer["nonce"] ?? "") ?? false }
                if !stale { return .json(EchoReply(describing: request)) }
            }
        }
        let nonce = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let staleOnce = !stale && request.queryParameters["stale-once"] == "1"
        issued.withLockedValue { $0[nonce] = staleOnce }
        return AuthRoutes.unauthorized(challenge: "Digest realm=\"\(AuthRoutes.realm)\", qop=\"auth\", algorithm=\(algorithm), "
            + "nonce=\"\(nonce)\", opaque=\"cb\"" + (stale ? ", stale=true" : ""))
    }

    /// Whether the client's answer is right for this request, a nonce we issued and the password.
    private static func verify(
        _ answer: [String: String], request: ReceivedRequest, username: String, password: String, algorithm: String
    ) -> Bool {
        guard answer["username"] == username, answer["realm"] == AuthRoutes.realm,
              answer["uri"] == request.head.uri, answer["qop"] == "auth",
              (answer["algorithm"] ?? "MD5") == algorithm,
              let nonce = answer["nonce"], issued.withLockedValue({ $0[nonce] != nil }),
              let count = answer["nc"], let clientNonce = answer["cnonce"], let response = answer["response"]
        else { return false }
        let hash = { (text: String) in hexDigest(text, algorithm: algorithm) }
        let secret = hash("\(username):\(AuthRoutes.realm):\(password)")
        let target = hash("\(request.head.method.rawValue):\(request.head.uri)")
        return response.lowercased() == hash("\(secret):\(nonce):\(count):\(clientNonce):auth:\(target)")
    }

    private static func hexDigest(_ text: String, algorithm: String) -> String {
        let bytes: [UInt8] = algorithm == "SHA-256"
            ? Array(SHA256.hash(data: Data(text.utf8))) : Array(Insecure.MD5.hash(data: Data(text.utf8)))
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The `name=value` / `name="value"` pairs of a Digest authorization header.
    private static func parameters(of text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text[...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                while let character = rest.first, character != "\"" {
                    if character == "\\" { rest = rest.dropFirst() }
                    if let next = rest.first { value.append(next) }
                    rest = rest.dropFirst()
                }
                rest = rest.dropFirst()
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            result[name] = value
        }
        return result
    }
}
