import CurlBridge
import Foundation

/// What a leak shows up in: open descriptors, threads, live curl easy handles and transfers, and
/// resident memory of this process.
struct ProcessCounts: CustomStringConvertible {
    var descriptors: Int
    var threads: Int
    var easyHandles: Int
    /// Live curl transfers: a transfer gives its easy handle back when it ends, so one leaked after
    /// that shows here only.
    var transfers: Int
    /// Resident set size in KiB (`VmRSS` of /proc/self/status), after `malloc_trim(0)`: freed heap
    /// that glibc keeps in its arenas is returned first, so what remains is memory in use.
    var residentKiB: Int

    /// The counts now.
    static func now() -> ProcessCounts {
        ProcessCounts(
            descriptors: entries(in: "/proc/self/fd"), threads: entries(in: "/proc/self/task"),
            easyHandles: Transport._liveCurlHandleCount, transfers: Transport._liveCurlTransferCount,
            residentKiB: residentKiB())
    }

    /// The counts once descriptors, threads and handles are back to `baseline` (plus
    /// `threadSlack` threads: libdispatch lets idle workers go after a few seconds), or after
    /// `limit` seconds, whichever comes first. Servers close their side of a connection
    /// asynchronously, and workers take a moment to exit.
    static func settled(to baseline: ProcessCounts, threadSlack: Int, limit: Double) -> ProcessCounts {
        let deadline = Date().addingTimeInterval(limit)
        var counts = now()
        while Date() < deadline,
            counts.descriptors > baseline.descriptors || counts.threads > baseline.threads + threadSlack
                || counts.easyHandles > baseline.easyHandles || counts.transfers > baseline.transfers
        {
            Thread.sleep(forTimeInterval: 0.05)
            counts = now()
        }
        return counts
    }

    var description: String {
        "fd=\(descriptors) threads=\(threads) handles=\(easyHandles) transfers=\(transfers) rssKiB=\(residentKiB)"
    }

    private static func entries(in directory: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1
    }

    private static func residentKiB() -> Int {
        _ = mallocTrim(0)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
        }
        return -1
    }
}

/// glibc's `malloc_trim`, which the Glibc module does not export.
@_silgen_name("malloc_trim") private func mallocTrim(_ pad: Int) -> Int32
