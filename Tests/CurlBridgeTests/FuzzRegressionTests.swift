@testable import CurlBridge
import Foundation
import HTTPTypes
import Testing

/// Inputs the fuzz targets (Fuzz/, `scripts/fuzz.sh`) found, kept as unit tests so the fix stays.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// FuzzRedirect: libcurl connects `http://0x7f.1/` to 127.0.0.1, but the origin check read the
    /// host as the text `0x7f.1`, so the two disagreed on where a request goes.
    @Test("An IPv4 address in another notation has the origin curl connects to", arguments: [
        "http://0x7f.1/", "http://2130706433/", "http://0177.0.0.1/", "http://127.1/", "HTTP://0X7F.0.0.1/",
    ])
    func ipv4NotationsShareTheDottedOrigin(url: String) throws {
        let origin = try #require(Credential.Origin(url))
        #expect(origin == Credential.Origin(scheme: "http", host: "127.0.0.1"))
        #expect(origin.description == "http://127.0.0.1:80")
    }

    @Test("Host names that only look numeric keep their text", arguments: [
        "http://0x7f.example/", "http://1.2.3.4.5/", "http://127.0.0.1./", "http://deadbeef/",
    ])
    func namesAreNotAddresses(url: String) throws {
        let origin = try #require(Credential.Origin(url))
        let host = try #require(URLComponents(string: url)?.host)
        #expect(origin.host == host.lowercased())
    }

    @Test("A redirect to the same address in another notation is same-origin, one elsewhere is not")
    func redirectToAnotherNotationOfTheSameAddress() throws {
        let request = Request.get("http://127.0.0.1:8080/a").header("X-Custom", "kept")
        func decide(_ location: String) -> RedirectStep {
            var fields = HTTPFields()
            fields[.location] = location
            let head = ResponseHead(status: .found, headerFields: fields, httpVersion: .http1_1, url: request.url)
            return RedirectStep.decide(
                head, request: request, url: request.url, hopsSoFar: 0, visited: [], policy: .standard, defaultHeaders: [:])
        }
        guard case .follow(let same, _) = decide("http://0x7f.1:8080/b") else {
            Issue.record("the redirect was not followed")
            return
        }
        #expect(same.headerFields[HTTPField.Name("X-Custom")!] == "kept")
        guard case .follow(let other, _) = decide("http://0x7f.2:8080/b") else {
            Issue.record("the redirect was not followed")
            return
        }
        #expect(other.headerFields[HTTPField.Name("X-Custom")!] == nil)
    }
}
