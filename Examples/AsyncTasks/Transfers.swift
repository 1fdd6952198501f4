import CurlBridge
import CurlBridgeTestServer
import Foundation

/// Downloads, resume, streaming and uploads against the embedded server's `/resource` and
/// `/upload-sink` routes.
func demonstrateTransfers(_ client: AsyncClient) async {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlbridge-demo-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let destination = directory.appendingPathComponent("resource.bin")
    do throws(RequestError) {
        // The server cuts the connection after 8 MB of 20 MB: the error carries resume data.
        var resumeData: ResumeData?
        do {
            _ = try await client.download(
                .get("resource/20000000?cut=8000000"), to: destination,
                options: DownloadOptions(createsIntermediateDirectories: true, keepsPartialFileForResume: true))
        } catch {
            print("download interrupted: \(error.code), \(error.resumeData?.bytesOnDisk ?? 0) bytes kept for resume")
            resumeData = error.resumeData
        }
        let file = try await client.download(.get("resource/20000000"), to: destination, resumingFrom: resumeData) { progress in
            if progress.bytesReceived == progress.expectedBytesToReceive { print("download progress: 100%") }
        }
        print("resumed download: \(file.status.code), \(file.bytesWritten) bytes, \(file.resumedFromOffset) from the first attempt")

        let streamed = try await client.stream(.get("bytes/5000000"))
        var chunks = 0, bytes = 0
        for try await chunk in streamed.body {
            chunks += 1
            bytes += chunk.count
        }
        print("streamed \(bytes) bytes in \(chunks) chunks, status \(streamed.status.code)")

        let upload = try await client.upload(.put("upload-sink"), fromFile: destination)
        let reply = try upload.decode(UploadSinkReply.self)
        print("uploaded \(reply.length) bytes from the file, server's SHA-256 \(reply.sha256.prefix(16))…")
    } catch {
        print("transfer failed: \(error)")
    }
}
