@testable import CurlBridge
import Foundation
import Testing

/// The one rule for a partial file's name, made and recognised, with no I/O.
@Suite("PartialFileName: the only files a download touches beside its destination")
struct PartialFileNameTests {
    private let destination = URL(fileURLWithPath: "/dl/a.iso")

    @Test("A name it makes is a partial file of that destination, and of no other")
    func madeNamesAreRecognised() {
        for _ in 0..<100 {
            let name = PartialFileName.make(for: "a.iso")
            #expect(PartialFileName.isPartialFile(name, of: "a.iso"), "\(name)")
            #expect(!PartialFileName.isPartialFile(name, of: "a"))
            #expect(PartialFileName.isPartialFile(URL(fileURLWithPath: "/dl/" + name), of: destination))
        }
    }

    @Test("Other names are not partial files of a.iso", arguments: [
        ".a.iso.sig.k1.curlbridge-partial",  // the partial file of a.iso.sig
        ".a.iso..curlbridge-partial",
        ".a.iso.K1.curlbridge-partial",
        ".a.iso.k1.curlbridge-partial.x",
        "a.iso.k1.curlbridge-partial",
        ".a.iso.0123456789abcd.curlbridge-partial",  // longer than a 64-bit token
        "a.iso",
        "authorized_keys",
    ])
    func otherNamesAreNot(name: String) {
        #expect(!PartialFileName.isPartialFile(name, of: "a.iso"))
    }

    @Test("A partial file is beside its destination, reached without . or ..", arguments: [
        ("/dl/.a.iso.k1.curlbridge-partial", true),
        ("/other/.a.iso.k1.curlbridge-partial", false),
        ("/dl/sub/.a.iso.k1.curlbridge-partial", false),
        ("/dl/sub/../.a.iso.k1.curlbridge-partial", false),
        ("/dl/./.a.iso.k1.curlbridge-partial", false),
        ("/etc/passwd", false),
    ])
    func directoryMatters(path: String, isPartial: Bool) {
        #expect(PartialFileName.isPartialFile(URL(fileURLWithPath: path), of: destination) == isPartial)
        #expect(!PartialFileName.isPartialFile(URL(string: "http://x/.a.iso.k1.curlbridge-partial")!, of: destination))
    }
}
