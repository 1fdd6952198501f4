import CurlBridge
import CurlBridgeFoundation
import CurlBridgeTestServer
import Foundation
import HTTPTypes
import Testing

/// Validation and decoding, with the same outcome whichever client fetched the response.
@Suite(.hangGuard) struct ResponseHandlingTests {
    /// A request for a 200 "ok" response with the given `Content-Type`.
    static func serving(_ contentType: String) -> Request {
        Request.get("response-headers").query("Content-Type", contentType)
    }

    static let contentTypeCases: [(String, Request, [String]?, RequestError.Code?)] = [
        ("Accept matches", serving("application/json").header("Accept", "application/json"), nil, nil),
        ("Accept differs", serving("text/html").header("Accept", "application/json"), nil, .unacceptableContentType),
        ("Accept wildcard subtype", serving("text/html; charset=utf-8").header("Accept", "application/json, text/*;q=0.5"), nil, nil),
        ("no Accept means any", serving("image/png"), nil, nil),
        ("explicit list wins", serving("application/json").header("Accept", "application/json"), ["application/xml"], .unacceptableContentType),
        ("explicit wildcard", serving("application/json"), ["*/*"], nil),
    ]

    @Test(arguments: ClientStyle.allCases, contentTypeCases.map(\.0))
    func contentTypeValidationFollowsAcceptUnlessGivenAList(style: ClientStyle, name: String) async throws {
        let (_, request, contentTypes, expected) = try #require(Self.contentTypeCases.first { $0.0 == name })
        let transport = Fixture.transport(try await Fixture.server())
        let response = try await style.send(request, through: transport).get()
        let outcome = Result { () throws(RequestError) in try response.validate(contentTypes: contentTypes) }
        #expect(outcome.failure?.code == expected)
        if let error = outcome.failure { #expect(error.response?.status == .ok) }
    }

    @Test func validationErrorsAreIdenticalAcrossClients() async throws {
        let transport = Fixture.transport(try await Fixture.server())
        var errors: [RequestError] = []
        for style in ClientStyle.allCases {
            let response = try await style.send(Self.serving("text/html").header("Accept", "application/json"), through: transport).get()
            errors.append(try #require(Result { () throws(RequestError) in try response.validate() }.failure))
        }
        #expect(Set(errors.map(\.code)).count == 1)
        #expect(Set(errors.map(\.message)).count == 1)
        #expect(Set(errors.compactMap { $0.response?.body }).count == 1)
    }

    @Test(arguments: ClientStyle.allCases)
    func emptyBodiesDecodeAsEmptyWhereExpected(style: ClientStyle) async throws {
        let transport = Fixture.transport(try await Fixture.server())
        let noContent = try await style.send(.get("status/204"), through: transport).get()
        #expect(try noContent.validate().decode(Empty.self) == Empty())
        #expect(try noContent.json() is NSNull)
        #expect(Result { () throws(RequestError) in try noContent.decode([String: Int].self) }.failure?.code == .decodingFailed)
        let head = try await style.send(.head("json"), through: transport).get()
        #expect(try head.decode(Empty.self) == Empty())
    }

    @Test(arguments: ClientStyle.allCases)
    func jsonDecodesToTypesAndToFoundationObjects(style: ClientStyle) async throws {
        struct Item: Decodable, Equatable { let id: Int; let name: String }
        let transport = Fixture.transport(try await Fixture.server())
        let response = try await style.send(.get("json"), through: transport).get()
        #expect(try response.decode(Item.self) == Item(id: 42, name: "CurlBridge"))
        let object = try response.json() as? [String: Any]
        #expect(object?["id"] as? Int == 42)
        let notJSON = try await style.send(Self.serving("text/plain"), through: transport).get()
        #expect(Result { () throws(RequestError) in try notJSON.json() }.failure?.code == .decodingFailed)
        #expect(try notJSON.text() == "ok")
    }

    /// A response with `body` and `Content-Type: contentType`, as the transport would build it.
    func response(_ body: Data, contentType: String?) -> Response {
        var fields = HTTPFields()
        if let contentType { fields[.contentType] = contentType }
        let metrics = TransferMetrics(
            nameLookup: .zero, connect: .zero, tlsHandshake: .zero, preTransfer: .zero, firstByte: .zero, total: .zero,
            bytesSent: 0, bytesReceived: Int64(body.count), headerBytes: 0, reusedConnection: false,
            localPort: 0, remoteAddress: "", remotePort: 0)
        return Response(status: .ok, headerFields: fields, body: body, url: "http://example.com/", httpVersion: .http1_1, metrics: metrics)
    }

    @Test func textUsesTheCharsetOfTheContentType() throws {
        #expect(try response(Data([0x63, 0x61, 0x66, 0xE9]), contentType: "text/plain; charset=ISO-8859-1").text() == "café")
        #expect(try response(Data("café".utf8), contentType: "text/plain").text() == "café")
        #expect(try response(Data("café".utf8), contentType: nil).text() == "café")
        let utf16 = try #require("hé".data(using: .utf16LittleEndian))
        #expect(try response(utf16, contentType: #"text/plain; charset="utf-16le""#).text() == "hé")
    }

    @Test func unknownCharsetOrInvalidBytesFailToDecode() {
        let unknown = Result { () throws(RequestError) in try response(Data("x".utf8), contentType: "text/plain; charset=x-klingon").text() }
        #expect(unknown.failure?.code == .decodingFailed)
        #expect(unknown.failure?.message.contains("x-klingon") == true)
        let invalid = Result { () throws(RequestError) in try response(Data([0xFF, 0xFE, 0xFD]), contentType: "text/plain; charset=utf-8").text() }
        #expect(invalid.failure?.code == .decodingFailed)
    }

    @Test func propertyListsParseInXMLAndBinaryForm() throws {
        let value: [String: Any] = ["id": 42, "tags": ["a", "b"]]
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let data = try PropertyListSerialization.data(fromPropertyList: value, format: format, options: 0)
            let parsed = try response(data, contentType: "application/x-plist").propertyList() as? [String: Any]
            #expect(parsed?["id"] as? Int == 42)
            #expect(parsed?["tags"] as? [String] == ["a", "b"])
        }
        #expect(Result { () throws(RequestError) in try response(Data("{".utf8), contentType: nil).propertyList() }.failure?.code == .decodingFailed)
    }

    @Test func bodyWithoutContentTypeFailsAnExplicitList() {
        let outcome = Result { () throws(RequestError) in try response(Data("x".utf8), contentType: nil).validate(contentTypes: ["application/json"]) }
        #expect(outcome.failure?.code == .unacceptableContentType)
        #expect((try? response(Data(), contentType: nil).validate(contentTypes: ["application/json"])) != nil)
    }

    /// A response keeps its fields in a copy-on-write box; printing it shows the fields, as before.
    @Test func printsItsFieldsNotItsStorage() {
        let printed = String(describing: response(Data("hi".utf8), contentType: "text/plain"))
        #expect(printed.hasPrefix("Response(status: "), "\(printed)")
        #expect(printed.contains("body: 2 bytes") && printed.contains("attempts: []") && !printed.contains("storage"), "\(printed)")
    }
}
