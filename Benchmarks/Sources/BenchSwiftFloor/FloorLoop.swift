import CBenchSwiftFloor
import Glibc
import Synchronization

/// One curl multi handle, driven by its own thread (``startThread()``) or by a blocking caller
/// (``perform(_:until:)``): transfers submitted from any thread under a mutex, woken with
/// `curl_multi_wakeup` (never by the driving thread itself), a fresh easy handle per transfer (the
/// safe way on libcurl < 8.1), and each finished transfer's outcome handed to its completion on the
/// driving thread. As a `TaskExecutor` it runs the jobs of tasks that prefer it between turns, as
/// CurlBridge's `Transport.executor` does.
final class FloorLoop: TaskExecutor, @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @exclusivity(unchecked) private var submitted: [FloorTransfer] = []
    /// The list the driving thread takes ``submitted`` into, swapped so that neither reallocates.
    @exclusivity(unchecked) private var starting: [FloorTransfer] = []
    /// Kept transfers to cancel, under the mutex, and the list the driving thread takes them into.
    @exclusivity(unchecked) private var cancels: [FloorTransfer] = []
    @exclusivity(unchecked) private var cancelling: [FloorTransfer] = []
    /// Jobs of tasks that prefer this executor, under the mutex, and the list they are run from.
    @exclusivity(unchecked) private var jobs: [UnownedJob] = []
    @exclusivity(unchecked) private var jobsToRun: [UnownedJob] = []
    /// The thread driving the loop (0 before one does), which never wakes itself: written by that
    /// thread, read by every submitter, so atomic.
    private let driver = Atomic<pthread_t>(0)
    /// Error buffers between transfers, kept by the driving thread (CurlBridge keeps its handle objects so).
    @exclusivity(unchecked) private var spareErrorBuffers: [UnsafeMutablePointer<CChar>] = []
    private let url: UnsafeMutablePointer<CChar>
    private let userAgent: UnsafeMutablePointer<CChar>
    private let cacert: UnsafeMutablePointer<CChar>?

    /// A loop for requests to `url`, with up to `concurrency` connections.
    init(url: String, userAgent: String, cacert: String?, concurrency: Int) {
        multi = curl_multi_init()
        pthread_mutex_init(mutex, nil)
        _ = swift_floor_multi_limit(multi, CURLMOPT_MAXCONNECTS, concurrency)
        _ = swift_floor_multi_limit(multi, CURLMOPT_MAX_HOST_CONNECTIONS, concurrency)
        self.url = strdup(url)
        self.userAgent = strdup(userAgent)
        self.cacert = cacert.map { strdup($0) }
    }

    /// Hands `transfer` to the loop, from any thread.
    func submit(_ transfer: FloorTransfer) {
        pthread_mutex_lock(mutex)
        submitted.append(transfer)
        pthread_mutex_unlock(mutex)
        wakeUnlessDriving()
    }

    /// Ends `transfer` with `CURLE_ABORTED_BY_CALLBACK` if it has not ended, from any thread, at
    /// any moment (before it is submitted too).
    func cancel(_ transfer: FloorTransfer) {
        pthread_mutex_lock(mutex)
        cancels.append(transfer)
        pthread_mutex_unlock(mutex)
        wakeUnlessDriving()
    }

    /// Runs `job` on the loop's thread between turns.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(job)
        pthread_mutex_unlock(mutex)
        wakeUnlessDriving()
    }

    private func wakeUnlessDriving() {
        if pthread_equal(driver.load(ordering: .relaxed), pthread_self()) != 0 { return }
        curl_multi_wakeup(multi)
    }

    /// Drives the loop on a thread of its own, for good.
    func startThread() {
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let loop = Unmanaged<FloorLoop>.fromOpaque(context!).takeRetainedValue()
            loop.driver.store(pthread_self(), ordering: .relaxed)
            while true { loop.turn(until: { false }) }
        }, Unmanaged.passRetained(self).toOpaque())
        precondition(created == 0, "pthread_create failed: \(created)")
    }

    /// Starts `transfer` and drives the loop on the calling thread until `isDone()`: a blocking
    /// caller that owns the loop (it neither queues the transfer nor wakes itself, as CurlBridge's
    /// blocking client does with an idle loop).
    func perform(_ transfer: FloorTransfer, until isDone: () -> Bool) {
        driver.store(pthread_self(), ordering: .relaxed)
        start(transfer)
        while !isDone() { turn(until: isDone) }
    }

    /// One turn: starts what was submitted, lets curl work, completes what finished, runs the jobs
    /// of tasks that prefer the loop, and waits in `curl_multi_poll` (woken by a submission or a
    /// job) unless something was submitted meanwhile or the driver is done.
    private func turn(until isDone: () -> Bool) {
        pthread_mutex_lock(mutex)
        swap(&submitted, &starting)
        swap(&cancels, &cancelling)
        pthread_mutex_unlock(mutex)
        for transfer in starting { start(transfer) }
        starting.removeAll(keepingCapacity: true)
        if !cancelling.isEmpty {
            for transfer in cancelling { end(transfer) }
            cancelling.removeAll(keepingCapacity: true)
        }
        var running: Int32 = 0
        curl_multi_perform(multi, &running)
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            finish(easy, code: message.pointee.data.result)
        }
        pthread_mutex_lock(mutex)
        swap(&jobs, &jobsToRun)
        pthread_mutex_unlock(mutex)
        for job in jobsToRun { job.runSynchronously(on: asUnownedTaskExecutor()) }
        jobsToRun.removeAll(keepingCapacity: true)
        pthread_mutex_lock(mutex)
        let idle = submitted.isEmpty && cancels.isEmpty && jobs.isEmpty
        pthread_mutex_unlock(mutex)
        if idle, !isDone() { curl_multi_poll(multi, nil, 0, 1000, nil) }
    }

    private func start(_ transfer: FloorTransfer) {
        if transfer.isCancelled { return transfer.complete(CURLE_ABORTED_BY_CALLBACK, status: 0) }
        let errorBuffer = spareErrorBuffers.popLast() ?? .allocate(capacity: Int(CURL_ERROR_SIZE))
        transfer.errorBuffer = errorBuffer
        let context = Unmanaged.passRetained(transfer).toOpaque()
        let made = if let kept = transfer.kept {
            kept.url.withCString { easy(for: $0, errorBuffer, context) }
        } else {
            easy(for: url, errorBuffer, context)
        }
        guard let easy = made else {
            Unmanaged<FloorTransfer>.fromOpaque(context).release()
            return transfer.complete(CURLE_OUT_OF_MEMORY, status: 0)
        }
        transfer.easy = easy
        curl_multi_add_handle(multi, easy)
    }

    /// A fresh easy handle for `url`, with the loop's options.
    private func easy(
        for url: UnsafePointer<CChar>, _ errorBuffer: UnsafeMutablePointer<CChar>, _ context: UnsafeMutableRawPointer
    ) -> UnsafeMutableRawPointer? {
        swift_floor_easy(
            url, userAgent, cacert, errorBuffer, context, FloorTransfer.receiveHeaderLine, FloorTransfer.receiveBody)
    }

    private func finish(_ easy: UnsafeMutableRawPointer, code: CURLcode) {
        let transfer = Unmanaged<FloorTransfer>.fromOpaque(swift_floor_context(easy)!).takeRetainedValue()
        let status = swift_floor_status(easy)
        let metrics = transfer.kept != nil && code == CURLE_OK ? FloorMetrics(easy) : nil
        release(transfer, easy)
        transfer.complete(code, status: status, metrics: metrics)
    }

    /// A cancel: ends `transfer` now if it runs, when it would start if it has not started yet,
    /// and not at all if it has ended.
    private func end(_ transfer: FloorTransfer) {
        guard !transfer.hasEnded else { return }
        guard let easy = transfer.easy else {
            transfer.isCancelled = true
            return
        }
        release(transfer, easy)
        // The reference the handle's private pointer held: curl holds no message of it (each turn
        // reads every finished transfer's before the next turn's cancels run).
        Unmanaged.passUnretained(transfer).release()
        transfer.complete(CURLE_ABORTED_BY_CALLBACK, status: 0)
    }

    /// Takes `easy` out of curl and cleans it up, keeping its error buffer.
    private func release(_ transfer: FloorTransfer, _ easy: UnsafeMutableRawPointer) {
        curl_multi_remove_handle(multi, easy)
        curl_easy_cleanup(easy)
        transfer.easy = nil
        if let errorBuffer = transfer.errorBuffer { spareErrorBuffers.append(errorBuffer) }
    }
}
