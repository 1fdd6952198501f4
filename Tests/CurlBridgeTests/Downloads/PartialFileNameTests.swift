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
            let name = PartialFileName(destinationName: "a.iso").make()
            #expect(PartialFileName(destinationName: "a.iso").recognises(name), "\(name)")
            #expect(!PartialFileName(destinationName: "a").recognises(name))
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
        #expect(!PartialFileName(destinationName: "a.iso").recognises(name))
    }

    @Test("The largest token is made and recognised; one digit more is not")
    func tokenBounds() {
        let files = PartialFileName(destinationName: "a.iso")
        #expect(files.make(token: .max) == ".a.iso.3w5e11264sgsf.curlbridge-partial")
        #expect(files.recognises(files.make(token: .max)) && files.recognises(files.make(token: 0)))
        #expect(!files.recognises(".a.iso.3w5e11264sgsf0.curlbridge-partial"))
    }

    @Test("Hostile destinations: each made name is one path component its own destination recognises, and no other's", arguments: [
        "..", ".", "...", ".a.iso.k1.curlbridge-partial", String(repeating: "x", count: 240), "e\u{301}", "\u{e9}", "a\u{0}b", "\u{FFFD}",
    ])
    func hostileDestinations(destinationName: String) {
        let files = PartialFileName(destinationName: destinationName)
        let name = files.make(token: 42)
        #expect(files.recognises(name))
        #expect(!name.contains("/") && name != "." && name != "..")
        for other in ["a.iso", ".", "..", "e\u{301}", "\u{e9}"] where other != destinationName {
            #expect(!PartialFileName(destinationName: other).recognises(name), "\(other.debugDescription) takes \(name.debugDescription)")
        }
    }

    @Test("Names are compared as bytes: a canonically equal name of another spelling is another file's")
    func bytesNotCanonicalEquivalence() {
        let composed = PartialFileName(destinationName: "\u{e9}.iso")
        let decomposed = PartialFileName(destinationName: "e\u{301}.iso")
        #expect("\u{e9}.iso" == "e\u{301}.iso", "Swift calls them equal")
        #expect(!decomposed.recognises(composed.make(token: 1)) && !composed.recognises(decomposed.make(token: 1)))
        #expect(!PartialFileName.isPartialFile(
            URL(fileURLWithPath: "/d\u{e9}/" + composed.make(token: 1)), of: URL(fileURLWithPath: "/de\u{301}/\u{e9}.iso")))
    }

    @Test("A name that is not UTF-8 on disk is read back repaired, and is nobody's partial file")
    func notUTF8() {
        let repaired = String(decoding: [0x2E, 0x61, 0xFF, 0x2E, 0x6B, 0x31] + Array(".curlbridge-partial".utf8), as: UTF8.self)
        #expect(!PartialFileName(destinationName: "a").recognises(repaired))
        #expect(!PartialFileName(destinationName: "a\u{FFFD}").recognises(repaired.replacingOccurrences(of: "k1", with: "K")))
        #expect(PartialFileName(destinationName: "a\u{FFFD}").recognises(repaired), "only the destination of that very name")
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
