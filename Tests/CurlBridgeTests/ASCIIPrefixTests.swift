@testable import CurlBridge
import Testing

/// The allocation-free checks that sort header lines and schemes on every request.
struct ASCIIPrefixTests {
    @Test func headerLinesAreMatchedByNameWhateverTheCase() {
        #expect("Proxy-Authorization: Basic x".isCurlHeaderLine(named: "proxy-authorization"))
        #expect("PROXY-AUTHORIZATION;".isCurlHeaderLine(named: "proxy-authorization"))
        #expect(!"Proxy-Authorizations: x".isCurlHeaderLine(named: "proxy-authorization"))
        #expect(!"Proxy-Authorization".isCurlHeaderLine(named: "proxy-authorization"))
        #expect(!"Proxy_Authorization: x".isCurlHeaderLine(named: "proxy-authorization"))  // only letters fold
        #expect(!"Authorization: x".isCurlHeaderLine(named: "proxy-authorization"))
        #expect("authorization: Bearer t".isCurlHeaderLine(named: "authorization"))
    }

    @Test func schemesAreMatchedWhateverTheCase() {
        #expect("HTTPS://example.com".hasASCIIPrefixIgnoringCase("https:"))
        #expect(!"http://example.com".hasASCIIPrefixIgnoringCase("https:"))
        #expect(!"https".hasASCIIPrefixIgnoringCase("https:"))
        #expect(!"https;//".hasASCIIPrefixIgnoringCase("https:"))
    }

    @Test func aOneCharacterPrefixIsAScalarLiteralAndStillMatches() {
        #expect("X-Custom".hasASCIIPrefixIgnoringCase("x"))
        #expect(!"Custom".hasASCIIPrefixIgnoringCase("x"))
        #expect("A: 1".isCurlHeaderLine(named: "a"))
        let bytes: [UInt8] = Array("Query".utf8)
        #expect(bytes.withUnsafeBytes { ASCIIBytes.hasPrefix($0, "q") })
    }
}
