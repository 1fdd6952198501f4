// Uploads one file as a multipart/form-data part with CurlBridge's blocking client and prints one
// JSON line with the throughput and the process's peak RSS: the file must stream from disk, so
// the RSS stays flat however large the file is.
//
//   bench-multipart-upload --url URL --file PATH
import CurlBridge
import Foundation

func argument(_ flag: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: flag), index + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[index + 1]
}

guard let url = argument("--url"), let path = argument("--file") else {
    FileHandle.standardError.write(Data("usage: bench-multipart-upload --url URL --file PATH\n".utf8))
    exit(2)
}

let size = ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
let client = BlockingClient(transport: Transport(configuration: Configuration(timeouts: Timeouts(connect: .seconds(10), idle: .seconds(30)))))
let form = MultipartForm().text("note", "benchmark").file("payload", at: URL(fileURLWithPath: path), contentType: "application/octet-stream")

Thread.detachNewThread {
    let start = DispatchTime.now().uptimeNanoseconds
    let outcome = Result { () throws(RequestError) in try client.send(Request.post(url).multipart(form)) }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let peakRSS = Double(usage.ru_maxrss) / 1024
    switch outcome {
    case .success(let response):
        let received = ((try? response.text()) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        print(#"{"client": "curlbridge-multipart-upload", "file_bytes": \#(size), "server_received_bytes": \#(received), "status": \#(response.status.code), "seconds": \#(String(format: "%.3f", seconds)), "mb_per_s": \#(String(format: "%.1f", Double(size) / seconds / 1e6)), "peak_rss_mib": \#(String(format: "%.1f", peakRSS))}"#)
        exit(response.status.code == 200 ? 0 : 1)
    case .failure(let error):
        print(#"{"client": "curlbridge-multipart-upload", "error": "\#(error.code)", "peak_rss_mib": \#(String(format: "%.1f", peakRSS))}"#)
        exit(1)
    }
}
dispatchMain()
