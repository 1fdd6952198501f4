import CurlBridge
import Foundation
import Testing

/// ``ResumeData/finishFromDisk(expectedSHA256:computesSHA256:)``: a download whose last
/// checkpoint held all of it is finished with no request, through the public API only.
@Suite("ResumeData.finishFromDisk: finishing a complete partial file after a crash")
final class FinishFromDiskTests {
    /// The SHA-256 of `abc`.
    private static let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    /// The test's directories, removed when it ends.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    deinit {
        scratch.remove()
    }

    /// A fresh directory with a partial file of `destination` holding `contents`, and resume data
    /// that says `onDisk` of `length` bytes are in it.
    private func scene(contents: String, onDisk: Int64 = 3, length: Int64? = 3) throws -> ResumeData {
        let directory = scratch.file("finish-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let destination = directory.appendingPathComponent("file.bin")
        let partial = directory.appendingPathComponent(PartialFileName(of: destination).make())
        try Data(contents.utf8).write(to: partial)
        return ResumeData(
            url: "http://h/file.bin", validator: .entityTag("\"v1\""), bytesOnDisk: onDisk, partialFileURL: partial,
            destination: destination, expectedLength: length)
    }

    @Test("A complete partial file is cut to its length, checked and moved into place")
    func movesIntoPlace() throws {
        let resume = try scene(contents: "abc and bytes past the checkpoint")
        #expect(resume.isComplete)
        #expect(try resume.finishFromDisk(expectedSHA256: Self.abc) == Self.abc)
        #expect(try Data(contentsOf: resume.destination) == Data("abc".utf8))
        #expect(!FileManager.default.fileExists(atPath: resume.partialFileURL.path))
        #expect(try scene(contents: "abc").finishFromDisk() == nil, "no digest unless asked")
    }

    @Test("A file of another digest fails with integrityMismatch; its partial file is deleted, nothing moved")
    func mismatch() throws {
        let resume = try scene(contents: "abd")
        for (call, expected) in [(1, RequestError.Code.integrityMismatch), (2, .fileIO)] {
            do {
                _ = try resume.finishFromDisk(expectedSHA256: Self.abc)
                Issue.record("call \(call) finished a file of another digest")
            } catch {
                #expect(error.code == expected, "call \(call): the second finds nothing left to finish")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: resume.partialFileURL.path))
        #expect(!FileManager.default.fileExists(atPath: resume.destination.path))
    }

    @Test("After a crash that came after the move, the destination is checked and left in place")
    func alreadyMoved() throws {
        let resume = try scene(contents: "abc")
        try FileManager.default.moveItem(at: resume.partialFileURL, to: resume.destination)
        #expect(try resume.finishFromDisk(computesSHA256: true) == Self.abc)
        #expect(try Data(contentsOf: resume.destination) == Data("abc".utf8))
    }

    @Test("Resume data that does not hold every byte is not finished: fileIO, the partial file untouched")
    func incomplete() throws {
        for resume in [try scene(contents: "ab", onDisk: 2, length: 3), try scene(contents: "abc", onDisk: 3, length: nil)] {
            #expect(!resume.isComplete)
            do {
                _ = try resume.finishFromDisk()
                Issue.record("finished resume data that is not complete")
            } catch {
                #expect(error.code == .fileIO)
            }
            #expect(FileManager.default.fileExists(atPath: resume.partialFileURL.path))
            #expect(!FileManager.default.fileExists(atPath: resume.destination.path))
        }
    }
}
