import ArgumentParser
import Foundation

/// The options every `cb` verb takes, curl's names where curl has them.
struct TransferOptions: ParsableArguments {
    @Option(name: [.customShort("H"), .customLong("header")], help: ArgumentHelp("Add a request header, 'Name: value'; repeatable.", valueName: "header"))
    var headers: [String] = []

    @Option(name: [.short, .customLong("data")], help: ArgumentHelp(
        "Send DATA as the body (application/x-www-form-urlencoded unless -H says otherwise); @FILE sends a file's bytes.",
        valueName: "data"))
    var data: String?

    @Option(help: ArgumentHelp("Send JSON as the body with JSON Content-Type and Accept; @FILE sends a file.", valueName: "json"))
    var json: String?

    @Option(name: [.customShort("F"), .customLong("form")], help: ArgumentHelp(
        "Add a multipart/form-data part: name=value, or name=@FILE[;type=MIME] to upload a file; repeatable.",
        valueName: "name=value"))
    var formFields: [String] = []

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp(
        "Download to FILE (to the directory FILE with several URLs), with a progress bar when stderr is a terminal.",
        valueName: "file"))
    var output: String?

    @Flag(help: "With -o, continue the partial download an interrupted run left (FILE.cb-resume).")
    var resume = false

    @Option(help: ArgumentHelp("Retry a failed idempotent request up to N times (503, 429, lost connections…).", valueName: "n"))
    var retry = 0

    @Option(help: ArgumentHelp("Require the server's public key to be this one, sha256//BASE64; repeatable for backup keys.", valueName: "hash"))
    var pin: [String] = []

    @Option(help: ArgumentHelp("Trust only the certificate authorities in this PEM file.", valueName: "file"))
    var cacert: String?

    @Option(name: [.customShort("u"), .customLong("user")], help: ArgumentHelp(
        "Send HTTP Basic credentials, 'user:password'.", valueName: "user:password"))
    var user: String?

    @Flag(name: .customLong("plain-http-credentials"), help: ArgumentHelp(
        "Send credentials (-u, an Authorization header, user:password@ in the URL) over plain http to hosts other than this machine's loopback, readable on the way."))
    var allowsPlainHTTPCredentials = false

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not verify the server's certificate (pins still apply).")
    var insecure = false

    @Flag(name: [.customShort("L"), .customLong("location")], help: "Follow redirects.")
    var followsRedirects = false

    @Option(name: .customLong("max-redirs"), help: ArgumentHelp("Follow at most N redirects with -L (default 10).", valueName: "n"))
    var maximumRedirects: Int?

    @Option(name: .customLong("connect-timeout"), help: ArgumentHelp("Give up connecting after SECONDS.", valueName: "seconds"))
    var connectTimeout: Double?

    @Option(name: [.customShort("m"), .customLong("max-time")], help: ArgumentHelp("Give up the whole transfer after SECONDS.", valueName: "seconds"))
    var maximumTime: Double?

    @Flag(name: [.customShort("f"), .customLong("fail")], help: "Exit 22, printing no body, when the status is 400 or more.")
    var fail = false

    @Flag(name: [.short, .customLong("include")], help: "Print the response head before the body.")
    var include = false

    @Flag(name: [.short, .customLong("verbose")], help: "Print the equivalent curl command (secrets redacted) and the transfer's metrics to stderr.")
    var verbose = false

    @Option(help: ArgumentHelp("Transfer at most N of the URLs at once.", valueName: "n"))
    var parallel = 1

    @Option(help: ArgumentHelp(
        "Keep an HTTP cache in DIR (RFC 9111, 100 MiB): a fresh stored response answers without a request, a stale one is revalidated.",
        valueName: "dir"))
    var cache: String?

    @Option(help: ArgumentHelp(
        "With get and -o, download through a durable queue whose journal is in DIR: run again with the same arguments after a crash or kill to finish the batch.",
        valueName: "dir"))
    var queue: String?

    mutating func validate() throws {
        let bodies = [data != nil, json != nil, !formFields.isEmpty].filter { $0 }.count
        guard bodies <= 1 else { throw ValidationError("-d, --json and -F cannot be combined") }
        guard user.map({ $0.contains(":") }) ?? true else {
            throw ValidationError("-u takes 'user:password' (cb never prompts for a password)")
        }
        guard retry >= 0 else { throw ValidationError("--retry takes a count of 0 or more") }
        guard parallel >= 1 else { throw ValidationError("--parallel takes a count of 1 or more") }
        guard (maximumRedirects ?? 0) >= 0 else { throw ValidationError("--max-redirs takes a count of 0 or more") }
        guard !resume || output != nil else { throw ValidationError("--resume continues a download: it needs -o FILE") }
        guard queue == nil || output != nil else { throw ValidationError("--queue downloads to files: it needs -o FILE or -o DIR/") }
        guard queue == nil || !resume else { throw ValidationError("--queue resumes by itself: leave out --resume") }
        for seconds in [connectTimeout, maximumTime].compactMap({ $0 }) where !(seconds > 0) {
            throw ValidationError("timeouts are a number of seconds above 0")
        }
        for header in headers where HeaderLine(header) == nil {
            throw ValidationError("-H \(header.debugDescription) is not 'Name: value'")
        }
        for field in formFields where FormField(field) == nil {
            throw ValidationError("-F \(field.debugDescription) is not name=value or name=@file")
        }
    }
}
