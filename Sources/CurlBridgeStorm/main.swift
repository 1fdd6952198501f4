// Storms and soaks against the embedded test server; the scripts and the storm tests run these.
//
//   CurlBridgeStorm cancel [--count N | --duration S] [--seed X] [--concurrency C]
//       requests cancelled at random phases in the three styles through every cancel path;
//       prints lost/duplicate/unexpected completions, cancels per second, the latency from each
//       cancel call to the library's completion event, and fd/thread/handle counts
//   CurlBridgeStorm soak [--requests N] [--seed X] [--concurrency C] [--leak-on-purpose] [--ignore-rss]
//       a mixed workload with 10% faults, for LeakSanitizer or valgrind; prints outcomes, RSS
//       every 500 requests and its drift over the second half, and fd/thread/handle counts
//   CurlBridgeStorm queue-crash [--kills N] [--files F] [--size BYTES] [--interval BYTES] [--concurrency C] [--seed X]
//       a DownloadQueue child killed N times and restarted, then run to the end: every file's
//       SHA-256, the bytes the server sent against the files', and what each kill cost
//   CurlBridgeStorm queue-child --state DIR --out DIR --interval BYTES [--concurrency C] URL...
//       the process queue-crash kills (see QueueChild)
//
// Exit status 0 when every check of the run held, 1 when one did not, 2 for bad arguments.
import Foundation

/// Options that take no value.
let knownFlags: Set<String> = ["--leak-on-purpose", "--ignore-rss"]
/// `--name value` pairs after the mode, the flags given, and the other words.
var arguments: [String: String] = [:]
var flags: Set<String> = []
var positionals: [String] = []
var words = CommandLine.arguments.dropFirst(2).makeIterator()
while let word = words.next() {
    if knownFlags.contains(word) {
        flags.insert(word)
    } else if word.hasPrefix("--") {
        arguments[word] = words.next()
    } else {
        positionals.append(word)
    }
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
    case "queue-crash":
        var options = QueueCrash.Options(seed: seed)
        options.kills = arguments["--kills"].flatMap { Int($0) } ?? options.kills
        options.files = arguments["--files"].flatMap { Int($0) } ?? options.files
        options.size = arguments["--size"].flatMap { Int($0) } ?? options.size
        options.checkpointInterval = arguments["--interval"].flatMap { Int64($0) } ?? options.checkpointInterval
        options.concurrency = arguments["--concurrency"].flatMap { Int($0) } ?? options.concurrency
        exit(try QueueCrash(options: options).run())
    case "queue-child":
        guard let state = arguments["--state"], let output = arguments["--out"], let interval = arguments["--interval"].flatMap({ Int64($0) }) else {
            print("usage: CurlBridgeStorm queue-child --state DIR --out DIR --interval BYTES [--concurrency C] URL...")
            exit(2)
        }
        exit(try QueueChild(options: QueueChild.Options(
            state: URL(fileURLWithPath: state), output: URL(fileURLWithPath: output), checkpointInterval: interval,
            concurrency: arguments["--concurrency"].flatMap { Int($0) } ?? 1, urls: positionals)).run())
    default:
        print("usage: CurlBridgeStorm cancel [--count N | --duration S] [--seed X] [--concurrency C]")
        print("       CurlBridgeStorm soak [--requests N] [--seed X] [--concurrency C] [--leak-on-purpose] [--ignore-rss]")
        print("       CurlBridgeStorm queue-crash [--kills N] [--files F] [--size BYTES] [--interval BYTES] [--concurrency C] [--seed X]")
        print("       CurlBridgeStorm queue-child --state DIR --out DIR --interval BYTES [--concurrency C] URL...")
        exit(2)
    }
} catch {
    print("storm setup failed: \(error)")
    exit(1)
}
