import CurlBridge

/// Runs a verb's transfers on one transport, at most `--parallel` at once, and returns the
/// exit status: the first failure's, in command-line order.
struct Runner: Sendable {
    let transfers: [Transfer]
    let configuration: Configuration
    let parallel: Int

    func run() async -> ExitStatus {
        let transport = Transport(configuration: configuration)
        let bar = transfers.contains { $0.destination != nil } ? ProgressBar(transfers: transfers.count) : nil
        let output = OrderedOutput(bar: bar)
        let context = Transfer.Context(
            client: AsyncClient(transport: transport), configuration: configuration, output: output, bar: bar)
        let statuses = await withTaskGroup(of: (Int, ExitStatus).self) { group in
            var statuses = [ExitStatus](repeating: .interrupted, count: transfers.count)
            var next = 0
            func startNext() {
                guard next < transfers.count, !Task.isCancelled else { return }
                let transfer = transfers[next]
                group.addTask { (transfer.index, await transfer.run(context)) }
                next += 1
            }
            for _ in 0..<parallel { startNext() }
            for await (index, status) in group {
                statuses[index] = status
                output.finish(index)
                startNext()
            }
            return statuses
        }
        bar?.finish()
        await transport.shutdown()
        configuration.cache?.flush()  // its entries are written in the background
        return statuses.first { $0 != .success } ?? (output.outputFailed ? .fileError : .success)
    }
}
