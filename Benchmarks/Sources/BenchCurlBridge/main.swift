import BenchSupport
import CurlBridge

// CurlBridge's three front ends on one transport configuration:
//   bench-curlbridge --style blocking|async|callback --url URL --requests N --concurrency C …
// blocking: C worker threads (never the main thread), each sending one request at a time;
// async: C child tasks in a task group; callback: C requests started, each completion starting the next.

let arguments = BenchArguments.fromCommandLine(choiceFlag: ("--style", ["blocking", "async", "callback"]))
let style = arguments.choice ?? "blocking"
let run = BenchRun(client: "curlbridge-\(style)", arguments: arguments)
if arguments.stream {
    // Every front end collects the body in memory, capped by Configuration.maximumBodySize; no
    // public API streams a body to a file yet.
    run.skip("streaming download lands in a later issue")
}

let transport = CurlBridgeSetup.makeTransport(arguments)
let request = Request.get(arguments.url)

switch style {
case "async":
    let client = AsyncClient(transport: transport)
    run.measure {
        AsyncWorkers.block {
            await AsyncWorkers.run(concurrency: arguments.concurrency, requests: arguments.requests) { _ in
                let start = monotonicNanoseconds()
                do throws(RequestError) {
                    CurlBridgeSetup.complete(.success(try await client.send(request)), since: start, in: run)
                } catch {
                    CurlBridgeSetup.complete(.failure(error), since: start, in: run)
                }
            }
        }
    }
case "callback":
    let pipeline = CallbackPipeline(client: CallbackClient(transport: transport), request: request, run: run)
    run.measure { pipeline.runToCompletion() }
default:
    let client = BlockingClient(transport: transport)
    run.measure {
        WorkerThreads.run(threads: arguments.concurrency, requests: arguments.requests) { _ in
            let start = monotonicNanoseconds()
            do throws(RequestError) {
                CurlBridgeSetup.complete(.success(try client.send(request)), since: start, in: run)
            } catch {
                CurlBridgeSetup.complete(.failure(error), since: start, in: run)
            }
        }
    }
}
run.finish()
