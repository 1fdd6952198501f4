import BenchSupport
import CurlBridge

// CurlBridge's three front ends on one transport configuration:
//   bench-curlbridge --style blocking|async|async-executor|callback --url URL --requests N --concurrency C …
// blocking: C worker threads (never the main thread), each sending one request at a time;
// async: C child tasks in a task group; async-executor: the same tasks preferring the transport's
// executor (they run on its loop, awaiting without thread hand-offs); callback: C requests started, each completion starting the next.
//
// What each request is: a GET whose body is collected in memory (the small workloads); with
// --stream, a GET whose body is streamed chunk by chunk to --output (Streams.swift), or with
// --transfer download, downloaded to --output by the style's download verb (Downloads.swift);
// with --upload PATH, a POST of that file through the style's upload verb (Uploads.swift).
// Blocking and callback transfers run on C worker threads, each waiting for its own.
// --workload cache-miss or cache-hit puts a memory HTTPCache on the transport (CacheWorkload.swift).

let arguments = BenchArguments.fromCommandLine(choiceFlag: ("--style", ["blocking", "async", "async-executor", "callback"]))
let style = arguments.choice ?? "blocking"
let run = BenchRun(client: "curlbridge-\(style)\(arguments.transfer == .download ? "-download" : "")", arguments: arguments)
if arguments.transfer == .download, !Downloads.canDownload(to: arguments.output) {
    run.skip("a download needs a regular file as --output, not \(arguments.output)")
}

let cacheWorkload = CacheWorkload(arguments.workload)
let transport = CurlBridgeSetup.makeTransport(arguments, cache: cacheWorkload?.makeCache())
let request = arguments.upload == nil ? Request.get(arguments.url) : Request.post(arguments.url)

/// The request numbered `index`: the same one every time, except in the cache-miss workload.
@Sendable func requestNumbered(_ index: Int) -> Request {
    cacheWorkload?.request(index, url: arguments.url) ?? request
}

/// What one request is, by workload: a body collected in memory, streamed, downloaded, or an upload of a file.
enum Kind {
    case collect, stream, download, upload(String)
}

let kind: Kind
if let file = arguments.upload {
    kind = .upload(file)
} else if arguments.stream {
    kind = arguments.transfer == .download ? .download : .stream
} else {
    kind = .collect
}

switch (style, kind) {
case ("async", _), ("async-executor", _):
    let client = AsyncClient(transport: transport)
    run.measure {
        AsyncWorkers.block(executor: style == "async-executor" ? transport.executor : nil) {
            await AsyncWorkers.run(concurrency: arguments.concurrency, requests: arguments.requests) { index in
                switch kind {
                case .stream: await Streams.fetch(request, with: client, run: run)
                case .download: await Downloads.fetch(request, with: client, run: run)
                case .upload(let file): await Uploads.send(request, file: file, with: client, run: run)
                case .collect:
                    let start = monotonicNanoseconds()
                    do throws(RequestError) {
                        CurlBridgeSetup.complete(.success(try await client.send(requestNumbered(index))), since: start, in: run)
                    } catch {
                        CurlBridgeSetup.complete(.failure(error), since: start, in: run)
                    }
                }
            }
        }
    }
case ("callback", .collect):
    let pipeline = CallbackPipeline(client: CallbackClient(transport: transport), request: requestNumbered, run: run)
    run.measure { pipeline.runToCompletion() }
case ("callback", _):
    let client = CallbackClient(transport: transport)
    run.measure {
        WorkerThreads.run(threads: arguments.concurrency, requests: arguments.requests) { _ in
            switch kind {
            case .stream: Streams.fetch(request, with: client, run: run)
            case .download: Downloads.fetch(request, with: client, run: run)
            case .upload(let file): Uploads.send(request, file: file, with: client, run: run)
            case .collect: break
            }
        }
    }
default:
    let client = BlockingClient(transport: transport)
    run.measure {
        WorkerThreads.run(threads: arguments.concurrency, requests: arguments.requests) { index in
            switch kind {
            case .stream: Streams.fetch(request, with: client, run: run)
            case .download: Downloads.fetch(request, with: client, run: run)
            case .upload(let file): Uploads.send(request, file: file, with: client, run: run)
            case .collect:
                let start = monotonicNanoseconds()
                do throws(RequestError) {
                    CurlBridgeSetup.complete(.success(try client.send(requestNumbered(index))), since: start, in: run)
                } catch {
                    CurlBridgeSetup.complete(.failure(error), since: start, in: run)
                }
            }
        }
    }
}
run.finish()
