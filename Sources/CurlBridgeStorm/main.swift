// Storms and soaks against the embedded test server; the scripts and the storm tests run these.
//
//   CurlBridgeStorm cancel [--count N | --duration S] [--seed X] [--concurrency C]
//       requests cancelled at random phases in the three styles through every cancel path;
//       prints lost/duplicate/unexpected completions, cancels per second, the latency from each
//       cancel call to the library's completion event, and fd/thread/handle counts
//   CurlBridgeStorm soak [--requests N] [--seed X] [--concurrency C] [--leak-on-purpose] [--ignore-rss]
//       a mixed workload with 10% faults, for LeakSanitizer or valgrind; prints outcomes, RSS
//       every 500 requests and its drift over the second half, and fd/thread/handle counts
//
// Exit status 0 when every check of the run held, 1 when one did not, 2 for bad arguments.
import Foundation

/// Options that take no value.
let knownFlags: Set<String> = ["--leak-on-purpose", "--ignore-rss"]
/// `--name value` pairs after the mode, and the flags given.
var arguments: [String: String] = [:]
var flags: Set<String> = []
var words = CommandLine.arguments.dropFirst(2).makeIterator()
while let word = words.next() {
    if knownFlags.contains(word) { flags.insert(word) } else { arguments[word] = words.next() }
}
let seed = arguments["--seed"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max))

do {
    switch CommandLine.arguments.dropFirst().first {
    case "cancel":
        var options = CancelStorm.Options(seed: seed)
        options.count = arguments["--count"].flatMap { Int($0) }
        options.duration = arguments["--duration"].flatMap { Double($0) }
        if options.count == nil, options.duration == nil { options.count = 10_000 }
        options.concurrency = arguments["--concurrency"].flatMap { Int($0) } ?? options.concurrency
        exit(try CancelStorm(options: options).run())
    case "soak":
        var options = Soak.Options(seed: seed)
        options.requests = arguments["--requests"].flatMap { Int($0) } ?? options.requests
        options.concurrency = arguments["--concurrency"].flatMap { Int($0) } ?? options.concurrency
        options.leaksOnPurpose = flags.contains("--leak-on-purpose")
        options.ignoresResidentMemory = flags.contains("--ignore-rss")
        exit(try Soak(options: options).run())
    default:
        print("usage: CurlBridgeStorm cancel [--count N | --duration S] [--seed X] [--concurrency C]")
        print("       CurlBridgeStorm soak [--requests N] [--seed X] [--concurrency C] [--leak-on-purpose] [--ignore-rss]")
        exit(2)
    }
} catch {
    print("storm setup failed: \(error)")
    exit(1)
}
