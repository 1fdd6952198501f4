import BenchSupport
import CurlBridge
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Downloads to a file (`--transfer download`): each style's `download(_:to:)` with `--output` as
/// the destination — a partial file beside it, `fsync`, rename — the verb as an app calls it.
enum Downloads {
    /// One download through `AsyncClient.download`.
    static func fetch(_ request: Request, with client: AsyncClient, run: BenchRun) async {
        let start = monotonicNanoseconds()
        do throws(RequestError) {
            record(try await client.download(request, to: destination(run)), since: start, in: run)
        } catch {
            run.record(since: start, error: "\(error.code): \(error.message)")
        }
    }

    /// One download through `BlockingClient.download`.
    static func fetch(_ request: Request, with client: BlockingClient, run: BenchRun) {
        let start = monotonicNanoseconds()
        do throws(RequestError) {
            record(try client.download(request, to: destination(run)), since: start, in: run)
        } catch {
            run.record(since: start, error: "\(error.code): \(error.message)")
        }
    }

    /// One download through `CallbackClient.download`, waiting for its completion.
    static func fetch(_ request: Request, with client: CallbackClient, run: BenchRun) {
        let start = monotonicNanoseconds()
        let done = DispatchSemaphore(value: 0)
        client.download(request, to: destination(run)) { result in
            switch result {
            case .success(let file): record(file, since: start, in: run)
            case .failure(let error): run.record(since: start, error: "\(error.code): \(error.message)")
            }
            done.signal()
        }
        done.wait()
    }

    /// Whether `--output` can be a download's destination: a regular file (the run created it),
    /// never a device such as `/dev/null`, which the final rename would replace.
    static func canDownload(to path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    private static func destination(_ run: BenchRun) -> URL {
        URL(fileURLWithPath: run.arguments.output)
    }

    private static func record(_ file: DownloadResponse, since start: UInt64, in run: BenchRun) {
        run.record(since: start, bytes: Int(file.bytesWritten))
    }
}
