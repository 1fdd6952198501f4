import Glibc

/// The command line every Swift benchmark client takes, parsed by hand so the clients share one
/// parser and one usage text:
///
/// ```
/// --url URL --requests N --concurrency C [--cacert PATH] [--output PATH] [--workload NAME]
/// [--stream] [--buffer BYTES] [--transfer stream|download] [--fsync] [--consume-rate BYTES_PER_S]
/// [--upload PATH] plus the client's own choice, e.g. --style blocking|async|callback
/// ```
///
/// `--stream` says the body must go to `--output` as it arrives and never be held whole in memory
/// (the 1 GiB download); a client that cannot do that reports the run as skipped. `--transfer
/// download` asks for the client's download-to-a-file verb instead of streaming into `--output`;
/// `--fsync` flushes `--output` to disk before the clock stops; `--consume-rate` makes the body's
/// consumer slow; `--upload` sends a file as the request body.
public struct BenchArguments: Sendable {
    /// The URL every request fetches.
    public var url: String
    /// How many requests to send in all.
    public var requests: Int
    /// How many requests to keep in flight at once (1 = sequential).
    public var concurrency: Int
    /// A PEM file with the CA to trust instead of the system store, if any.
    public var cacert: String?
    /// Where body bytes are written; `/dev/null` by default.
    public var output: String
    /// The workload's name, echoed in the JSON line.
    public var workload: String
    /// Whether bodies must be streamed to the output instead of held in memory.
    public var stream: Bool
    /// The receive buffer size for clients that can set one (`CURLOPT_BUFFERSIZE`).
    public var buffer: Int
    /// The client's own choice (`--style` or `--mode`), if it has one.
    public var choice: String?
    /// How a streamed body reaches `--output`: chunk by chunk (``Transfer/stream``, the default)
    /// or through the client's download-to-a-file verb (``Transfer/download``).
    public var transfer: Transfer = .stream
    /// Whether `--output` is flushed to disk (`fsync`) before the clock stops.
    public var fsync = false
    /// The body's consumer takes at most this many bytes per second (sleeping between chunks);
    /// `nil`: as fast as it can.
    public var consumeRate: Int?
    /// A file sent as the request body (a `POST`), streamed from disk; `nil`: a `GET`.
    public var upload: String?

    /// How a streamed body reaches `--output`.
    public enum Transfer: String, Sendable {
        /// Chunk by chunk, each written to `--output` as it arrives.
        case stream
        /// The client's download-to-a-file verb, with `--output` as the destination.
        case download
    }

    /// Parses `arguments` (without the program name).
    ///
    /// - Parameters:
    ///   - arguments: The command-line words.
    ///   - choiceFlag: The client's own option, e.g. `("--style", ["blocking", "async"])`, whose
    ///     first value is the default; `nil` when the client has none.
    /// - Throws: ``BenchArgumentError`` naming the first bad word.
    public static func parse(
        _ arguments: [String], choiceFlag: (flag: String, values: [String])? = nil
    ) throws(BenchArgumentError) -> BenchArguments {
        var parsed = BenchArguments(
            url: "", requests: 1, concurrency: 1, cacert: nil, output: "/dev/null", workload: "unnamed",
            stream: false, buffer: 512 << 10, choice: choiceFlag?.values.first)
        var words = arguments[...]
        while let flag = words.popFirst() {
            if flag == "--stream" {
                parsed.stream = true
                continue
            }
            if flag == "--fsync" {
                parsed.fsync = true
                continue
            }
            guard let value = words.popFirst() else { throw BenchArgumentError("\(flag) needs a value") }
            switch flag {
            case "--url": parsed.url = value
            case "--requests": parsed.requests = try positive(value, flag)
            case "--concurrency": parsed.concurrency = try positive(value, flag)
            case "--cacert": parsed.cacert = value
            case "--output": parsed.output = value
            case "--workload": parsed.workload = value
            case "--buffer": parsed.buffer = try positive(value, flag)
            case "--consume-rate": parsed.consumeRate = try positive(value, flag)
            case "--upload": parsed.upload = value
            case "--transfer":
                guard let transfer = Transfer(rawValue: value) else { throw BenchArgumentError("--transfer must be stream or download") }
                parsed.transfer = transfer
            case choiceFlag?.flag:
                guard let choices = choiceFlag?.values, choices.contains(value) else {
                    throw BenchArgumentError("\(flag) must be one of \(choiceFlag?.values.joined(separator: "|") ?? "")")
                }
                parsed.choice = value
            default: throw BenchArgumentError("unknown option \(flag)")
            }
        }
        guard parsed.url.hasPrefix("http://") || parsed.url.hasPrefix("https://") else {
            throw BenchArgumentError("--url must be an http:// or https:// URL")
        }
        parsed.concurrency = min(parsed.concurrency, parsed.requests)
        return parsed
    }

    private static func positive(_ value: String, _ flag: String) throws(BenchArgumentError) -> Int {
        guard let number = Int(value), number > 0 else { throw BenchArgumentError("\(flag) must be a positive integer") }
        return number
    }

    /// Parses the process's own arguments, or prints the problem and usage and exits with 2.
    public static func fromCommandLine(choiceFlag: (flag: String, values: [String])? = nil) -> BenchArguments {
        do {
            return try parse(Array(CommandLine.arguments.dropFirst()), choiceFlag: choiceFlag)
        } catch {
            let choice = choiceFlag.map { " \($0.flag) \($0.values.joined(separator: "|"))" } ?? ""
            standardError(
                "\(error.message)\nusage: \(CommandLine.arguments.first ?? "bench")\(choice) --url URL --requests N "
                    + "--concurrency C [--cacert PATH] [--output PATH] [--workload NAME] [--stream] [--buffer BYTES] "
                    + "[--transfer stream|download] [--fsync] [--consume-rate BYTES_PER_S] [--upload PATH]")
            exit(2)
        }
    }
}

/// A bad command line.
public struct BenchArgumentError: Error, Sendable {
    /// What is wrong.
    public let message: String

    init(_ message: String) { self.message = message }
}
