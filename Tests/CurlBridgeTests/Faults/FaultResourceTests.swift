import Foundation
import Testing

/// Resources after every fault, counted in a process of its own (`CurlBridgeProbe faults`):
/// descriptors and curl handles back to the baseline after each fault, threads at the end, and
/// RSS growth within the body cap plus 8 MiB.
@Suite("Resources after faults", .hangGuard)
struct FaultResourceTests {
    /// The `name=value` fields of a probe line.
    static func fields(_ line: String) -> [String: String] {
        Dictionary(line.split(separator: " ").compactMap { field -> (String, String)? in
            let pair = field.split(separator: "=", maxSplits: 1)
            return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
        }, uniquingKeysWith: { $1 })
    }

    @Test("descriptors, handles, threads and RSS return to the baseline after every fault")
    func resourcesReturnToBaseline() async throws {
        let lines = try await ProbeProcessTests().runProbe("faults")
        let baseline = Self.fields(try #require(lines.first { $0.hasPrefix("faults baseline ") }, "\(lines)"))
        let end = Self.fields(try #require(lines.first { $0.hasPrefix("faults end ") }, "\(lines.suffix(5))"))
        let runs = lines.filter { $0.hasPrefix("fault ") }.map(Self.fields)
        #expect(runs.count >= 150, "\(runs.count) fault runs")
        for run in runs {
            let name = "\(run["name"] ?? "?") tls=\(run["tls"] ?? "?") \(run["style"] ?? "?")"
            #expect(Int(run["fd"] ?? "") ?? .max <= Int(baseline["fd"] ?? "") ?? 0, "descriptors after \(name): \(run["fd"] ?? "?"), baseline \(baseline["fd"] ?? "?")")
            #expect(run["handles"] == "0", "curl handles alive after \(name): \(run["handles"] ?? "?")")
            #expect(run["transfers"] == "0", "curl transfers alive after \(name): \(run["transfers"] ?? "?")")
            if name.contains("bomb") {
                // CPU time (not wall-clock) of one bomb, a generous bound: the cap stops decoding.
                #expect((Double(run["cpu"] ?? "") ?? .infinity) < 20, "CPU seconds for \(name): \(run["cpu"] ?? "?")")
            }
        }
        #expect(Int(end["threads"] ?? "") ?? .max <= Int(baseline["threads"] ?? "") ?? 0, "threads \(end["threads"] ?? "?"), baseline \(baseline["threads"] ?? "?")")
        let growth = (Int(end["peakRss"] ?? "") ?? .max) - (Int(baseline["rss"] ?? "") ?? 0)
        let allowed = (Int(baseline["maximumBodySize"] ?? "") ?? 0) + (8 << 20)
        #expect(growth <= allowed, "RSS grew by \(growth) bytes, allowed \(allowed)")
        let bombs = runs.filter { $0["name"]?.contains("bomb") == true }
        print("fault probe: \(runs.count) runs; bomb CPU seconds: " + bombs.map { "\($0["name"] ?? "")/\($0["style"] ?? "")=\($0["cpu"] ?? "")" }.joined(separator: " "))
    }
}
