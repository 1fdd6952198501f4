import CurlBridgeTestServer
import Foundation
import Testing

/// Every HTTP/2 fault in the three styles, five rounds, in a process of its own
/// (`CurlBridgeProbe h2-faults`): afterwards its descriptors, threads and live curl handles are
/// back to where they were and its resident memory grew by 8 MiB at most.
@Suite("HTTP/2 fault resources", .hangGuard)
struct H2FaultResourceTests {
    @Test("after every HTTP/2 fault, descriptors, threads and curl handles are back to baseline")
    func resourcesReturnToBaseline() async throws {
        let lines = try await ProbeProcessTests().runProbe("h2-faults")
        let summary = try #require(lines.first { $0.hasPrefix("h2-faults rounds=") }, "\(lines)")
        let fields = Self.fields(summary)
        #expect(fields["rounds"] == "5")
        let number = { (name: String) in Int(fields[name] ?? "") ?? -1 }
        #expect(number("fdAfter") <= number("fdBefore"), "\(summary)")
        #expect(number("threadsAfter") <= number("threadsBefore") + 4, "\(summary)")
        #expect(number("handlesAfter") == number("handlesBefore"), "\(summary)")
        #expect(number("transfersAfter") == number("transfersBefore"), "\(summary)")
        #expect(number("rssAfterKiB") - number("rssBeforeKiB") <= 8 << 10, "\(summary)")

        let faults = Dictionary(uniqueKeysWithValues: lines.filter { $0.hasPrefix("h2-faults fault=") }.map {
            let fields = Self.fields($0)
            return (fields["fault"] ?? "", fields)
        })
        #expect(faults.count == 9, "\(lines)")
        for (name, report) in faults {
            let outcomes = Set((report["outcomes"] ?? "").split(separator: ",").map(String.init))
            if !name.hasPrefix("goAway"), name != "refuseStreams" {
                #expect(!outcomes.contains("200"), "\(name) succeeded: \(outcomes)")
            }
            #expect(!outcomes.isEmpty && !outcomes.contains("transportFailure"), "\(name): \(outcomes)")
            // CPU time, not wall-clock time: a client spinning on a flood would burn it all.
            #expect(Int(report["cpuMs"] ?? "") ?? .max < 10_000, "\(name): \(report)")
        }
        let flood = try #require(faults["continuationFlood"])
        #expect(Int(flood["continuationFrames"] ?? "") ?? .max < H2FaultServer.continuationFloodLimit, "\(flood)")
    }

    /// `key=value` fields of a probe line.
    static func fields(_ line: String) -> [String: String] {
        Dictionary(line.split(separator: " ").compactMap { pair -> (String, String)? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
    }
}
