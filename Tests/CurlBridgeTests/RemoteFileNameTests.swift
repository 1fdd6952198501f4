@testable import CurlBridge
import Foundation
import Testing

/// ``RemoteFileName`` case by case: what each URL names, what each hostile one is refused for,
/// and the check that the file stays in its directory. No file is touched.
@Suite("Remote file name")
struct RemoteFileNameTests {
    typealias Name = RemoteFileName

    @Test("the last path segment as the URL spells it, without query or fragment")
    func ordinaryNames() {
        #expect(Name.decide("https://example.com/episodes/42.mp3") == .name("42.mp3"))
        #expect(Name.decide("https://example.com/episodes/42.mp3?token=abc/def#t=1/2") == .name("42.mp3"))
        #expect(Name.decide("https://example.com/show%20notes.txt") == .name("show%20notes.txt"))
        #expect(Name.decide("https://example.com/show notes.txt") == .name("show%20notes.txt"), "a raw space is encoded, as it is sent")
        #expect(Name.decide("https://example.com/caf%C3%A9") == .name("caf%C3%A9"))
        #expect(Name.decide("https://example.com/a;v=1") == .name("a;v=1"))
        #expect(Name.decide("http://[::1]:8080/x.bin") == .name("x.bin"))
        #expect(Name.decide("episodes/42.mp3") == .name("42.mp3"), "a relative URL: its path's last segment")
    }

    @Test("escapes stay escapes: an encoded slash or dot is part of one harmless name")
    func encodedTraversalStaysOneName() {
        #expect(Name.decide("http://h/a%2Fb") == .name("a%2Fb"))
        #expect(Name.decide("http://h/%2e%2e") == .name("%2e%2e"))
        #expect(Name.decide("http://h/%2E%2E%2F%2E%2E%2Fx") == .name("%2E%2E%2F%2E%2E%2Fx"))
        #expect(Name.decide("http://h/%2ehidden") == .name("%2ehidden"))
        #expect(Name.decide("http://h/a%00b") == .name("a%00b"))
        #expect(Name.decide("http://h/a%0Ab") == .name("a%0Ab"))
    }

    @Test("raw control characters in a URL are encoded by the parser before they could reach a name")
    func rawControlCharactersAreEncoded() {
        #expect(Name.decide("http://h/a\u{0}b") == .name("a%00b"))
        #expect(Name.decide("http://h/a\u{1}b") == .name("a%01b"))
        #expect(Name.decide("http://h/a\u{202E}b") == .name("a%E2%80%AEb"))
    }

    @Test("a path that is empty or ends in / names the directory's index")
    func directoryIndex() {
        #expect(Name.decide("http://h") == .name("index.html"))
        #expect(Name.decide("http://h/") == .name("index.html"))
        #expect(Name.decide("http://h/a/") == .name("index.html"))
        #expect(Name.decide("http://h/a/?q=1#f") == .name("index.html"))
        #expect(Name.decide("http://h/a//") == .name("index.html"))
    }

    @Test(". and .. are directories, a leading dot a hidden file: refused")
    func dotSegmentsAndHiddenNamesAreRefused() {
        #expect(Name.decide("http://h/..") == .refused(.dotSegment("..")))
        #expect(Name.decide("http://h/a/..") == .refused(.dotSegment("..")))
        #expect(Name.decide("http://h/a/..?q=1") == .refused(.dotSegment("..")))
        #expect(Name.decide("http://h/a/.") == .refused(.dotSegment(".")))
        #expect(Name.decide("http://h/.hidden") == .refused(.hidden(".hidden")))
        #expect(Name.decide("http://h/.bashrc") == .refused(.hidden(".bashrc")))
        #expect(Name.decide("http://h/...") == .refused(.hidden("...")))
        #expect(Name.decide("http://h/.%2F..%2Fx") == .refused(.hidden(".%2F..%2Fx")))
        #expect(Name.decide("http://h/..%2F..%2Fpwned1") == .refused(.hidden("..%2F..%2Fpwned1")), "the issue's attack, refused as a hidden name")
    }

    @Test("a name over 200 bytes is refused; 200 is taken")
    func overLongNames() {
        let longest = String(repeating: "a", count: 200)
        #expect(Name.decide("http://h/\(longest)") == .name(longest))
        #expect(Name.decide("http://h/\(longest)b") == .refused(.tooLong(bytes: 201)))
        #expect(Name.decide("http://h/" + String(repeating: "%C3%A9", count: 40)) == .refused(.tooLong(bytes: 240)))
        #expect(Name.decide("http://h/" + String(repeating: "x", count: 4096)) == .refused(.tooLong(bytes: 4096)))
    }

    @Test("what cannot be parsed is not a URL")
    func unparseable() {
        #expect(Name.decide("") == .refused(.notAURL))
        #expect(Name.decide("http://[zz/x") == .refused(.notAURL))
        #expect(Name.decide("http://h:port/x") == .refused(.notAURL))
    }

    @Test("a name from anywhere: empty, a separator, control and invisible formatting characters are refused")
    func namesFromElsewhere() {
        #expect(Name.refusal(of: "") == .empty)
        #expect(Name.refusal(of: "a/b") == .separator("a/b"))
        #expect(Name.refusal(of: "../x") == .hidden("../x"))
        for character in ["\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "\u{85}", "\u{202E}", "\u{200B}", "\u{2028}", "\u{2029}", "\n", "\t"] {
            #expect(Name.refusal(of: "a\(character)b") == .invisibleCharacter("a\(character)b"), "\(character.unicodeScalars.map { "U+" + String($0.value, radix: 16) })")
        }
        #expect(Name.refusal(of: "café noir.txt") == nil)
        #expect(Name.refusal(of: "a..b") == nil)
    }

    @Test("the file is directly inside the standardized directory, or there is none")
    func fileStaysInItsDirectory() {
        let directory = URL(fileURLWithPath: "/srv/downloads/./in/../out/", isDirectory: true)
        #expect(Name.file(named: "x.bin", in: directory)?.path == "/srv/downloads/out/x.bin")
        #expect(Name.file(named: "%2e%2e%2F..%2Fx", in: directory)?.path == "/srv/downloads/out/%2e%2e%2F..%2Fx")
        #expect(Name.file(named: "f", in: URL(fileURLWithPath: "/", isDirectory: true))?.path == "/f")
        for escape in ["..", ".", "", "../x", "../../x", "a/b", "a/../b", "/etc/passwd"] {
            #expect(Name.file(named: escape, in: directory) == nil, "\(escape.debugDescription)")
        }
    }

    @Test("the public face: a name, a file in a directory, and precise errors")
    func publicAPI() throws {
        let name = try Name("http://h/dl/%2e%2e%2F%2e%2e%2Fpwned1?x=1")
        #expect(name.name == "%2e%2e%2F%2e%2e%2Fpwned1" && name.description == name.name)
        let directory = URL(fileURLWithPath: "/tmp/out", isDirectory: true)
        #expect(try name.file(in: directory).path == "/tmp/out/%2e%2e%2F%2e%2e%2Fpwned1")
        #expect(try Name("http://h/").file(in: directory).path == "/tmp/out/index.html")

        #expect(Self.code { try Name("http://h/..") } == .fileIO)
        #expect(Self.code { try Name("http://h/.ssh") } == .fileIO)
        #expect(Self.code { try Name("") } == .invalidURL)
        #expect(Self.code { try name.file(in: URL(string: "https://example.com/dir/")!) } == .fileIO)
        let message = Self.error { try Name("http://h/a/.bashrc") }?.message ?? ""
        #expect(message.contains("\".bashrc\" starts with a dot"), "\(message)")
    }

    private static func error(_ body: () throws -> some Any) -> RequestError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? RequestError
        }
    }

    private static func code(_ body: () throws -> some Any) -> RequestError.Code? {
        error(body)?.code
    }
}
