import BenchSupport
import CBenchSwiftFloor
import Dispatch
import FoundationEssentials
import Synchronization
@_spi(KeptWork) import CurlBridge

// The floor under CurlBridge's instructions (issue 37): what a Swift client over libcurl spends
// when it does nothing but what every client that returns a response must do.
//   bench-swift-floor --style [kept-]blocking|async|async-executor|callback --url URL --requests N --concurrency C [--cacert PATH]
// The same curl work as `bench-libcurl --mode multi --fresh-handle --collect` (a fresh easy handle
// per request, the same options), driven from Swift: each request handed to a curl multi handle
// driven by a thread of its own (async, callback) or by the blocking caller itself (blocking, as
// CurlBridge's blocking client drives an idle loop), its header lines and body kept by Swift
// callbacks in buffers that become `Data` without a copy, and a Result<FloorResponse, FloorError>
// handed back: to a task's continuation (async; async-executor: its tasks run on the loop's thread
// between turns, as on CurlBridge's `Transport.executor`), to a completion run on a serial queue
// that starts the next request (callback), or returned (blocking). The harness is
// bench-curlbridge's, and `complete` below mirrors `CurlBridgeSetup.complete` on purpose, so that
// the rows differ only in the client. Nothing CurlBridge adds is here: no validation of the
// request or the response, no policies, no metrics, no cancellation, no logging, no cookie locks.
// The kept styles (`kept-async` …) add what every CurlBridge request does whatever its
// configuration, with CurlBridge's own code where it has any (``KeptRequest``): the URL check, the
// response head's guard, the metrics, a cancel that reaches the transfer, the blocking guard.

let arguments = BenchArguments.fromCommandLine(choiceFlag: (
    "--style",
    ["blocking", "async", "async-executor", "callback", "kept-blocking", "kept-async", "kept-async-executor", "kept-callback"]))
let style = arguments.choice ?? "blocking"
let run = BenchRun(client: "swift-floor-\(style)", arguments: arguments)
/// The kept floor's first request: the style's floor plus what every CurlBridge request does (``KeptRequest``).
let kept: KeptRequest?
if style.hasPrefix("kept-") {
    guard let request = KeptRequest(url: arguments.url, maximumHeaderSize: Configuration().maximumHeaderSize) else {
        run.skip("CurlBridge would not send \(arguments.url) as a plain absolute URL")
    }
    kept = request
} else {
    kept = nil
}
let baseStyle = kept == nil ? style : String(style.dropFirst("kept-".count))
if baseStyle == "blocking", arguments.concurrency > 1 {
    run.skip("the blocking floor drives its loop on the caller's thread: one request in flight")
}
let libcurl = String(cString: swift_floor_libcurl_version())
let loop = FloorLoop(
    url: arguments.url, userAgent: "CurlBridge/floor libcurl/\(libcurl)", cacert: arguments.cacert,
    concurrency: arguments.concurrency)

/// Writes a 2xx response's body to the sink and records the request, as bench-curlbridge does.
@Sendable func complete(_ result: Result<FloorResponse, FloorError>, since start: UInt64) {
    switch result {
    case .success(let response) where (200..<300).contains(response.status):
        response.body.withUnsafeBytes { _ = run.sink.write($0) }
        run.record(since: start, bytes: response.body.count)
    case .success(let response):
        run.record(since: start, error: "status \(response.status)")
    case .failure(let error):
        run.record(since: start, error: "curl \(error.code)")
    }
}

switch baseStyle {
case "async", "async-executor":
    loop.startThread()
    run.measure {
        AsyncWorkers.block(executor: baseStyle == "async-executor" ? loop : nil) {
            await AsyncWorkers.run(concurrency: arguments.concurrency, requests: arguments.requests) { _ in
                let start = monotonicNanoseconds()
                guard let kept else {
                    let result = await withUnsafeContinuation { continuation in
                        loop.submit(FloorTransfer { continuation.resume(returning: $0) })
                    }
                    return complete(result, since: start)
                }
                guard let request = kept.again() else { return run.record(since: start, error: "URL refused") }
                let transfer = FloorTransfer(kept: request)
                let result = await withTaskCancellationHandler {
                    await withUnsafeContinuation { continuation in
                        transfer.completion = { continuation.resume(returning: $0) }
                        loop.submit(transfer)
                    }
                } onCancel: {
                    loop.cancel(transfer)
                }
                complete(result, since: start)
            }
        }
    }
case "callback":
    loop.startThread()
    let pipeline = FloorPipeline(loop: loop, requests: arguments.requests, kept: kept, complete: complete)
    run.measure { pipeline.runToCompletion(concurrency: arguments.concurrency) }
default:
    run.measure {
        WorkerThreads.run(threads: 1, requests: arguments.requests) { _ in
            let start = monotonicNanoseconds()
            let outcome = Mutex<Result<FloorResponse, FloorError>?>(nil)
            let keep: @Sendable (Result<FloorResponse, FloorError>) -> Void = { result in outcome.withLock { $0 = result } }
            let transfer: FloorTransfer
            if let kept {
                guard !KeptWork.refusesBlockingCall() else { return run.record(since: start, error: "blocking call refused") }
                guard let request = kept.again() else { return run.record(since: start, error: "URL refused") }
                transfer = FloorTransfer(kept: request, completion: keep)
            } else {
                transfer = FloorTransfer(completion: keep)
            }
            loop.perform(transfer) { outcome.withLock { $0 != nil } }
            complete(outcome.withLock { $0! }, since: start)
        }
    }
}
run.finish()
