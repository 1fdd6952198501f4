import BenchSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Bodies downloaded to a file: `downloadTask(with:completionHandler:)`, whose temporary file is
/// moved over `--output` (`rename(2)`) inside the completion handler, as an app must before the
/// handler returns and the file is deleted.
struct DownloadFetcher: StartedFetcher {
    let session: URLSession
    let run: BenchRun

    init(configuration: URLSessionConfiguration, run: BenchRun) {
        session = URLSession(configuration: configuration)
        self.run = run
    }

    func start(_ request: URLRequest, completion: @escaping @Sendable () -> Void) {
        let start = monotonicNanoseconds()
        let run = self.run
        session.downloadTask(with: request) { location, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            if let error {
                run.record(since: start, error: "\(error)")
            } else if !(200..<300).contains(status) {
                run.record(since: start, error: "status \(status)")
            } else if let location, rename(location.path, run.arguments.output) == 0 {
                run.record(since: start, bytes: Int(fileSize(atPath: run.arguments.output) ?? 0))
            } else {
                run.record(since: start, error: "cannot move the download to \(run.arguments.output)")
            }
            completion()
        }.resume()
    }
}

/// Bodies uploaded from a file: `uploadTask(with:fromFile:completionHandler:)`, a `POST`. A run
/// counts only when the status is 2xx and the receiver, which answers with the number of body
/// bytes it read, read the file's size.
struct UploadFetcher: StartedFetcher {
    let session: URLSession
    let run: BenchRun
    let file: URL

    init(configuration: URLSessionConfiguration, run: BenchRun, file: String) {
        session = URLSession(configuration: configuration)
        self.run = run
        self.file = URL(fileURLWithPath: file)
    }

    func start(_ request: URLRequest, completion: @escaping @Sendable () -> Void) {
        let start = monotonicNanoseconds()
        let run = self.run
        let size = fileSize(atPath: file.path) ?? -1
        session.uploadTask(with: request, fromFile: file) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            let received = data.flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? -1
            if let error {
                run.record(since: start, error: "\(error)")
            } else if !(200..<300).contains(status) {
                run.record(since: start, error: "status \(status)")
            } else if received != size {
                run.record(since: start, bytes: Int(max(received, 0)), error: "received \(received) of the file's \(size) bytes")
            } else {
                run.record(since: start, bytes: Int(received))
            }
            completion()
        }.resume()
    }
}
