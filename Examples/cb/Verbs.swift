import ArgumentParser
import Foundation
import HTTPTypes

/// A `cb` subcommand: one HTTP method, the shared options, and the URLs.
protocol VerbCommand: AsyncParsableCommand {
    static var method: HTTPRequest.Method { get }
    var options: TransferOptions { get }
    var urls: [String] { get }
}

extension VerbCommand {
    func run() async throws {
        let job: @Sendable () async -> ExitStatus
        do throws(CommandFailure) {
            if let queue = options.queue {
                guard Self.method == .get else { throw CommandFailure(.usage, "--queue downloads with get only") }
                let configuration = try options.queueConfiguration(for: urls)
                let run = QueueRun(
                    stateDirectory: URL(fileURLWithPath: queue, isDirectory: true),
                    downloads: zip(urls, try options.destinations(for: urls).compactMap { $0 }).map { ($0, $1) },
                    configuration: configuration, parallel: options.parallel, isVerbose: options.verbose)
                job = { await run.run() }
            } else {
                let configuration = try options.configuration(for: urls)
                let runner = Runner(transfers: try options.transfers(Self.method, urls), configuration: configuration, parallel: options.parallel)
                job = { await runner.run() }
            }
        } catch {
            StandardStream.error.write("cb: \(error.message)\n")
            throw ExitCode(error.status.rawValue)
        }
        let interrupt = Interrupt()
        let work = Task { await job() }
        interrupt.attach(work)
        let status = await work.value
        withExtendedLifetime(interrupt) {}
        if status != .success { throw ExitCode(status.rawValue) }
    }
}

struct Get: VerbCommand {
    static let configuration = CommandConfiguration(abstract: "GET each URL: the body to stdout, or to a file with -o.")
    static let method = HTTPRequest.Method.get
    @OptionGroup var options: TransferOptions
    @Argument(help: "The URLs.") var urls: [String]
}

struct Head: VerbCommand {
    static let configuration = CommandConfiguration(abstract: "HEAD each URL: print the response head.")
    static let method = HTTPRequest.Method.head
    @OptionGroup var options: TransferOptions
    @Argument(help: "The URLs.") var urls: [String]
}

struct Post: VerbCommand {
    static let configuration = CommandConfiguration(abstract: "POST the body of -d, --json or -F to each URL.")
    static let method = HTTPRequest.Method.post
    @OptionGroup var options: TransferOptions
    @Argument(help: "The URLs.") var urls: [String]
}

struct Put: VerbCommand {
    static let configuration = CommandConfiguration(abstract: "PUT the body of -d, --json or -F to each URL.")
    static let method = HTTPRequest.Method.put
    @OptionGroup var options: TransferOptions
    @Argument(help: "The URLs.") var urls: [String]
}

struct Patch: VerbCommand {
    static let configuration = CommandConfiguration(abstract: "PATCH each URL with the body of -d, --json or -F.")
    static let method = HTTPRequest.Method.patch
    @OptionGroup var options: TransferOptions
    @Argument(help: "The URLs.") var urls: [String]
}

struct Delete: VerbCommand {
    static let configuration = CommandConfiguration(abstract: "DELETE each URL.")
    static let method = HTTPRequest.Method.delete
    @OptionGroup var options: TransferOptions
    @Argument(help: "The URLs.") var urls: [String]
}
