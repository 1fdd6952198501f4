// cb: a curl-like command-line HTTP client on CurlBridge's async client — the shape of a real
// tool: a verb per method, curl's option names, a progress bar on a terminal, resumable
// downloads, retries, pinning, parallel transfers and curl's exit codes. See README.md here.
//
//   swift run cb get https://example.com/
//   swift run cb post --json '{"name":"Ada"}' -v https://httpbin.org/post
//   swift run cb get -o debian.iso --retry 3 https://…/debian.iso      (Ctrl-C, then --resume)
import ArgumentParser

@main
struct CB: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cb",
        abstract: "A curl-like HTTP client built on CurlBridge.",
        discussion: """
            Examples:
              cb get -i https://example.com/
              cb post --json '{"name":"Ada"}' https://api.example.com/users
              cb post -F title=Holiday -F photo=@beach.jpg https://api.example.com/uploads
              cb get -o big.iso https://example.com/big.iso    (interrupted? add --resume)
              cb get --parallel 4 -o downloads/ URL1 URL2 URL3 URL4 URL5

            Exit status (curl's codes where curl has one):
            \(ExitStatus.helpTable)
            """,
        subcommands: [Get.self, Head.self, Post.self, Put.self, Patch.self, Delete.self])
}
