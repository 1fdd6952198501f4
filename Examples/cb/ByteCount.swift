import Foundation

/// A number of bytes as people read it: `512 B`, `1.5 KiB`, `2.6 MiB`, `4.0 GiB`.
struct ByteCount: CustomStringConvertible {
    let bytes: Int64

    init(_ bytes: Int64) { self.bytes = bytes }

    var description: String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f ", value) + units[unit]
    }
}
