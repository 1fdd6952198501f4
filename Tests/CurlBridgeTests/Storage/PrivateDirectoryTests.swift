@testable import CurlBridge
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The directory the library keeps private state in, attacked as another local user would: a
/// directory made writable for them, a symbolic link in its place, links planted inside it.
@Suite("PrivateDirectory: state no one else can turn")
struct PrivateDirectoryTests {
    @Test("A missing directory is created 0700, its files 0600")
    func createdPrivate() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = try PrivateDirectory(opening: scratch.file("a/b/state"), role: "state directory")
        let created = try directory.createTemporary(prefix: "x.").get()
        close(created.descriptor)
        #expect(mode(of: scratch.file("a/b/state")) == 0o700)
        #expect(mode(of: scratch.file("a/b/state/\(created.name)")) == 0o600)
        #expect(directory.names == [created.name])
    }

    @Test("An existing directory writable by group or others is refused", arguments: [0o777, 0o770, 0o702, 0o1777])
    func writableByOthersIsRefused(permissions: Int) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file("shared")
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: false)
        chmod(path.path, mode_t(permissions))
        #expect(throws: RequestError.self) { try PrivateDirectory(opening: path, role: "state directory") }
        chmod(path.path, 0o755)
        #expect(throws: Never.self) { try PrivateDirectory(opening: path, role: "state directory") }
    }

    @Test("A symbolic link in place of the directory is refused, even to a private directory")
    func linkIsRefused() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let target = scratch.file("real")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        symlink(target.path, scratch.file("link").path)
        let error = try #require(throws: RequestError.self) { try PrivateDirectory(opening: scratch.file("link"), role: "cache directory") }
        #expect(error.code == .fileIO && error.message.contains("symbolic link"))
    }

    @Test("A directory owned by another user is refused", .enabled(if: geteuid() == 0, "only root can give a directory away"))
    func anotherUsersDirectoryIsRefused() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file("theirs")
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        chown(path.path, 65534, 65534)  // nobody
        let error = try #require(throws: RequestError.self) { try PrivateDirectory(opening: path, role: "state directory") }
        #expect(error.message.contains("belongs to user 65534"))
    }

    @Test("Links planted inside are never followed: not read, not written through, not created over")
    func plantedLinksAreNotFollowed() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = try PrivateDirectory(opening: scratch.file("state"), role: "state directory")
        let victim = scratch.file("victim.txt")
        try Data("precious".utf8).write(to: victim)
        symlink(victim.path, scratch.file("state/journal").path)

        #expect(directory.read("journal") == nil)
        #expect(directory.size(of: "journal") == nil)
        #expect(failure(directory.openFile("journal", O_WRONLY | O_TRUNC)) == .ELOOP)
        #expect(failure(directory.openFile("journal", O_WRONLY | O_CREAT | O_EXCL)) == .EEXIST)
        directory.remove("journal")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious")
        #expect(directory.names.isEmpty, "the link itself was removed")
    }

    @Test("Names are single components", arguments: ["", ".", "..", "a/b", "../x", "NUL"])
    func namesOutsideAreRefused(name: String) throws {
        let name = name == "NUL" ? "a\u{0}b" : name  // spelled out: a NUL would go raw into the test log
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = try PrivateDirectory(opening: scratch.file("state"), role: "state directory")
        #expect(!PrivateDirectory.isPlainName(name))
        #expect(failure(directory.openFile(name, O_WRONLY | O_CREAT)) == .EINVAL)
        #expect(directory.rename("x", to: name) == .EINVAL)
    }

    /// The error code of a failed open; `nil` (closing the file) when it succeeded.
    private func failure(_ result: Result<Int32, POSIXError>) -> POSIXErrorCode? {
        switch result {
        case .success(let descriptor):
            close(descriptor)
            return nil
        case .failure(let error):
            return error.code
        }
    }

    private func mode(of url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue
    }
}
