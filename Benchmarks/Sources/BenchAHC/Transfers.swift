import AsyncHTTPClient
import BenchSupport
import NIOCore
import NIOFileSystem

/// AsyncHTTPClient's ways of moving a body: streamed to the sink, downloaded to a file, uploaded
/// from one.
enum Transfers {
    /// A GET whose body is written to the sink chunk by chunk as it arrives (paced with
    /// `--consume-rate`: AHC's response body has backpressure).
    static func stream(_ request: HTTPClientRequest, with client: HTTPClient, run: BenchRun) async {
        let start = monotonicNanoseconds()
        var bytes = 0
        var pace = run.arguments.consumeRate.map { ConsumerPace(bytesPerSecond: $0) }
        do {
            let response = try await client.execute(request, timeout: .seconds(120))
            for try await buffer in response.body {
                bytes += buffer.readableBytes
                run.sink.write(contentsOf: buffer.readableBytesView)
                await pace?.pause(afterConsuming: buffer.readableBytes)
            }
            if (200..<300).contains(response.status.code) {
                run.record(since: start, bytes: bytes)
            } else {
                run.record(since: start, bytes: bytes, error: "status \(response.status.code)")
            }
        } catch {
            run.record(since: start, bytes: bytes, error: "\(error)")
        }
    }

    /// A GET written to `--output` by `FileDownloadDelegate` (NIO's `NonBlockingFileIO` on its
    /// thread pool).
    static func download(_ url: String, with client: HTTPClient, run: BenchRun) async {
        let start = monotonicNanoseconds()
        do {
            let delegate = try FileDownloadDelegate(path: run.arguments.output)
            let progress = try await client.execute(request: HTTPClient.Request(url: url), delegate: delegate).get()
            let status = progress.head.status.code
            let error = (200..<300).contains(status) ? nil : "status \(status)"
            run.record(since: start, bytes: progress.receivedBytes, error: error)
        } catch {
            run.record(since: start, error: "\(error)")
        }
    }

    /// A POST whose body is the file at `path`, streamed with `HTTPClientRequest.Body.stream` from
    /// NIOFileSystem's `readChunks` (512 KiB chunks read on NIO's thread pool) with a known
    /// length. A run counts only when the receiver, which answers with the number of body bytes
    /// it read, read the file's size.
    static func upload(_ path: String, to url: String, with client: HTTPClient, run: BenchRun) async {
        let start = monotonicNanoseconds()
        do {
            let (status, size, answer) = try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { file in
                let size = try await file.info().size
                var request = HTTPClientRequest(url: url)
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/octet-stream")
                request.body = .stream(file.readChunks(chunkLength: .kibibytes(512)), length: .known(size))
                let response = try await client.execute(request, timeout: .seconds(120))
                let answer = try await response.body.collect(upTo: 1024)
                return (response.status.code, size, String(buffer: answer))
            }
            let received = Int64(answer) ?? -1
            if !(200..<300).contains(status) {
                run.record(since: start, error: "status \(status)")
            } else if received != size {
                run.record(since: start, bytes: Int(max(received, 0)), error: "received \(received) of the file's \(size) bytes")
            } else {
                run.record(since: start, bytes: Int(received))
            }
        } catch {
            run.record(since: start, error: "\(error)")
        }
    }
}
