// A resumable downloader: a download that the server cuts short keeps its bytes, and its error
// carries resume data (`Codable`: saved to disk here, as a program would before exiting); a
// later attempt — another process, even — continues from there with `Range` and `If-Range`, and
// the file ends byte-identical to an uninterrupted download. If the resource changed in between,
// the validator no longer matches: the server sends it whole and the file starts again cleanly.
// Blocking calls on a worker thread, the style of a download script.
//
//   swift run ResumableDownloader     against the embedded loopback server (no network)
//
// Exits 1 if a step does not behave as described or a byte of the file is wrong.
import CurlBridge
import CurlBridgeTestServer
import Foundation
import Synchronization

let length = 3_000_000, cut = 1_200_000
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("resumable-\(UUID().uuidString)")
let destination = directory.appendingPathComponent("resource.bin")
let savedResumeData = directory.appendingPathComponent("resource.bin.resume")

/// Whether `file` holds exactly `/resource/N?version=V`'s bytes: byte `i` is `(i + V) % 251`.
func holdsResource(_ file: URL, version: Int) -> Bool {
    guard let data = try? Data(contentsOf: file), data.count == length else { return false }
    return data.enumerated().allSatisfy { index, byte in byte == UInt8((index + version) % 251) }
}

/// A failed download keeps its bytes (and gives resume data) only when asked.
let resumable = DownloadOptions(keepsPartialFileForResume: true)

/// The steps, each a check; the first that fails names itself.
func download(with client: BlockingClient) throws -> String? {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

    // 1. The server closes the connection after `cut` bytes (its `cut=` switch).
    do {
        _ = try client.download(.get("resource/\(length)?cut=\(cut)"), to: destination, options: resumable)
        return "the cut download succeeded"
    } catch {
        guard let resumeData = error.resumeData else { return "no resume data after \(error.code)" }
        print("1. interrupted: \(error.code), \(resumeData.bytesOnDisk) bytes kept, validator \(resumeData.validator.headerValue)")
        guard resumeData.bytesOnDisk == cut else { return "kept \(resumeData.bytesOnDisk) bytes, not \(cut)" }
        try JSONEncoder().encode(resumeData).write(to: savedResumeData)
    }

    // 2. Later: read the resume data back and continue where it stopped.
    let resumeData = try JSONDecoder().decode(ResumeData.self, from: Data(contentsOf: savedResumeData))
    let resumed = try client.download(.get("resource/\(length)"), to: destination, resumingFrom: resumeData)
    print("2. resumed: status \(resumed.status.code), \(resumed.bytesWritten) bytes, from byte \(resumed.resumedFromOffset)")
    guard resumed.status.code == 206, resumed.resumedFromOffset == Int64(cut) else { return "the download did not resume at \(cut)" }
    guard holdsResource(destination, version: 1) else { return "the resumed file differs from the resource" }

    // 3. Cut again, but the resource changes (version 2) before the resume: `If-Range` fails,
    //    the server answers 200 with the whole new version, and the partial bytes are dropped.
    var stale: ResumeData?
    do {
        _ = try client.download(.get("resource/\(length)?cut=\(cut)"), to: destination, options: resumable)
    } catch {
        stale = error.resumeData
    }
    guard let stale else { return "no resume data from the second cut" }
    let restarted = try client.download(.get("resource/\(length)?version=2"), to: destination, resumingFrom: stale)
    print("3. the resource changed: status \(restarted.status.code), resumed from byte \(restarted.resumedFromOffset)")
    guard restarted.status.code == 200, restarted.resumedFromOffset == 0 else { return "a changed resource was resumed" }
    guard holdsResource(destination, version: 2) else { return "the restarted file differs from version 2" }
    return nil
}

let server = try TestServer.startAndWait()
let client = BlockingClient(transport: Transport(configuration: Configuration(baseURL: server.httpURL)))
let problem = Mutex<String?>(nil)
let finished = DispatchSemaphore(value: 0)
Thread.detachNewThread {  // blocking calls belong on a worker thread, not the main one
    let found: String?
    do { found = try download(with: client) } catch { found = "\(error)" }
    problem.withLock { $0 = found }
    finished.signal()
}
finished.wait()
try? FileManager.default.removeItem(at: directory)
try server.shutdownAndWait()
if let found = problem.withLock({ $0 }) {
    print("FAILED: \(found)")
    exit(1)
}
print("ok")
