import BenchSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Foundation's URLSession (FoundationNetworking on Linux):
//   bench-urlsession --mode sync|async --url URL --requests N --concurrency C …
// sync: the classic pattern, dataTask + DispatchSemaphore per request, from worker threads
// (C of them); async: C child tasks each awaiting data(for:).
// With --stream, bodies arrive through a data delegate and go straight to --output (paced with
// --consume-rate); with --transfer download, a downloadTask's file is moved to --output; with
// --upload PATH, an uploadTask(with:fromFile:) POSTs the file.
//
// FoundationNetworking on Linux trusts only the system CA bundle (it reads no per-session CA), so
// --cacert cannot be applied here: run.sh bind-mounts the test CA over the system bundle in a
// private mount namespace for this process.

let arguments = BenchArguments.fromCommandLine(choiceFlag: ("--mode", ["sync", "async"]))
let mode = arguments.choice ?? "sync"
let run = BenchRun(client: arguments.transfer == .download ? "urlsession-download" : "urlsession-\(mode)", arguments: arguments)

let configuration = URLSessionConfiguration.default
configuration.httpMaximumConnectionsPerHost = arguments.concurrency
configuration.urlCache = nil
configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
configuration.timeoutIntervalForRequest = 60
guard let url = URL(string: arguments.url) else {
    standardError("invalid --url \(arguments.url)")
    exit(2)
}
let request = {
    var request = URLRequest(url: url)
    if arguments.upload != nil { request.httpMethod = "POST" }
    return request
}()

let fetcher: any URLSessionFetcher =
    if let file = arguments.upload {
        UploadFetcher(configuration: configuration, run: run, file: file)
    } else if arguments.stream, arguments.transfer == .download {
        DownloadFetcher(configuration: configuration, run: run)
    } else if arguments.stream {
        StreamingFetcher(configuration: configuration, run: run)
    } else {
        CompletionFetcher(configuration: configuration, run: run)
    }

if mode == "async" {
    run.measure {
        AsyncWorkers.block {
            await AsyncWorkers.run(concurrency: arguments.concurrency, requests: arguments.requests) { _ in
                await fetcher.fetch(request)
            }
        }
    }
} else {
    run.measure {
        WorkerThreads.run(threads: arguments.concurrency, requests: arguments.requests) { _ in
            fetcher.fetchBlocking(request)
        }
    }
}
run.finish()
