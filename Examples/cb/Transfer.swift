import CurlBridge
import Foundation

/// One URL of the command line, ready to run: its request and what to do with the answer.
struct Transfer: Sendable {
    /// Its position on the command line: output keeps this order.
    let index: Int
    let request: Request
    /// `-o`: the file to download to; `nil` prints the body on stdout.
    let destination: URL?
    /// Whether the download may create the destination's directory (`-o DIR/` with several URLs).
    let createsDirectories: Bool
    let resumes: Bool
    let includesHead: Bool
    let failsOnHTTPError: Bool
    let isVerbose: Bool

    /// What a transfer runs with.
    struct Context: Sendable {
        let client: AsyncClient
        let configuration: Configuration
        let output: OrderedOutput
        let bar: ProgressBar?
    }

    /// Sends the request, writes what it should, and says how it went.
    func run(_ context: Context) async -> ExitStatus {
        if isVerbose { context.output.error(VerboseReport.command(request, context.configuration), from: index) }
        if let destination { return await download(to: destination, context) }
        let response: Response
        do throws(RequestError) {
            response = try await context.client.send(request)
        } catch {
            return report(error, context)
        }
        if isVerbose {
            context.output.error(VerboseReport.metrics(
                response.metrics, version: response.httpVersion, status: response.status, attempts: response.attempts.count),
                from: index)
        }
        if failsOnHTTPError, response.status.code >= 400 {
            context.output.error("cb: \(response.url): HTTP \(response.status.code)\n", from: index)
            return .httpError
        }
        if includesHead || request.method == .head {
            context.output.output(Data(ResponseHeadText.text(response.httpVersion, response.status, response.headerFields).utf8), from: index)
        }
        context.output.output(response.body, from: index)
        return .success
    }

    /// `-o`: downloads into the file, resuming from its resume file with `--resume`, and leaves
    /// a resume file when it fails after some bytes.
    private func download(to destination: URL, _ context: Context) async -> ExitStatus {
        let resumeFile = ResumeFile(for: destination)
        var resumeData: ResumeData?
        if resumes {
            resumeData = resumeFile.load()
            if isVerbose {
                let note = resumeData.map { "* resuming at byte \($0.bytesOnDisk)\n" } ?? "* nothing to resume: downloading from the start\n"
                context.output.error(note, from: index)
            }
        } else if let stale = resumeFile.load() {
            stale.discard()
            resumeFile.remove()
        }
        var progress: (@Sendable (TransferProgress) -> Void)?
        if let bar = context.bar {
            let index = index
            progress = { bar.update(index, $0) }
        }
        do throws(RequestError) {
            let file = try await context.client.download(
                request, to: destination, resumingFrom: resumeData,
                options: DownloadOptions(createsIntermediateDirectories: createsDirectories, keepsPartialFileForResume: true),
                progress: progress)
            context.bar?.complete(index)
            resumeFile.remove()
            if isVerbose {
                context.output.error(VerboseReport.metrics(
                    file.metrics, version: file.httpVersion, status: file.status, attempts: file.attempts.count)
                    + "* wrote \(file.bytesWritten) bytes to \(destination.path) (resumed from byte \(file.resumedFromOffset))\n",
                    from: index)
            }
            if includesHead {
                context.output.output(Data(ResponseHeadText.text(file.httpVersion, file.status, file.headerFields).utf8), from: index)
            }
            return .success
        } catch {
            context.bar?.complete(index)
            if let resumeData = error.resumeData {
                do throws(CommandFailure) {
                    try resumeFile.save(resumeData)
                    context.output.error(
                        "cb: kept \(resumeData.bytesOnDisk) bytes of \(destination.path): run again with --resume to continue\n",
                        from: index)
                } catch {
                    context.output.error("cb: \(error.message)\n", from: index)
                }
            }
            return report(error, context)
        }
    }

    private func report(_ error: RequestError, _ context: Context) -> ExitStatus {
        context.output.error("cb: \(error)\n", from: index)
        if error.code == .credentialsOverPlainHTTP {
            context.output.error("cb: --plain-http-credentials sends them anyway, readable on the way\n", from: index)
        }
        return ExitStatus(error)
    }
}
