import BenchSupport
import CurlBridge
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Uploads from a file (`--upload PATH`): each style's `upload(_:fromFile:)` as a `POST`, the
/// file streamed from disk by curl's read callback. A run counts only when the status is 2xx and
/// both the receiver (which answers with the number of body bytes it read) and curl
/// (`metrics.bytesSent`) counted the file's size.
enum Uploads {
    /// One upload through `AsyncClient.upload`.
    static func send(_ request: Request, file: String, with client: AsyncClient, run: BenchRun) async {
        let start = monotonicNanoseconds()
        do throws(RequestError) {
            record(try await client.upload(request, fromFile: URL(fileURLWithPath: file)), of: file, since: start, in: run)
        } catch {
            run.record(since: start, error: "\(error.code): \(error.message)")
        }
    }

    /// One upload through `BlockingClient.upload`.
    static func send(_ request: Request, file: String, with client: BlockingClient, run: BenchRun) {
        let start = monotonicNanoseconds()
        do throws(RequestError) {
            record(try client.upload(request, fromFile: URL(fileURLWithPath: file)), of: file, since: start, in: run)
        } catch {
            run.record(since: start, error: "\(error.code): \(error.message)")
        }
    }

    /// One upload through `CallbackClient.upload`, waiting for its completion.
    static func send(_ request: Request, file: String, with client: CallbackClient, run: BenchRun) {
        let start = monotonicNanoseconds()
        let done = DispatchSemaphore(value: 0)
        client.upload(request, fromFile: URL(fileURLWithPath: file)) { result in
            switch result {
            case .success(let response): record(response, of: file, since: start, in: run)
            case .failure(let error): run.record(since: start, error: "\(error.code): \(error.message)")
            }
            done.signal()
        }
        done.wait()
    }

    private static func record(_ response: Response, of file: String, since start: UInt64, in run: BenchRun) {
        let sent = response.metrics.bytesSent
        let received = Int64(String(decoding: response.body, as: UTF8.self)) ?? -1
        let size = fileSize(atPath: file) ?? -1
        if !(200..<300).contains(response.status.code) {
            run.record(since: start, bytes: Int(sent), error: "status \(response.status.code)")
        } else if sent != size || received != size {
            run.record(since: start, bytes: Int(sent), error: "sent \(sent), received \(received) of the file's \(size) bytes")
        } else {
            run.record(since: start, bytes: Int(received))
        }
    }
}
