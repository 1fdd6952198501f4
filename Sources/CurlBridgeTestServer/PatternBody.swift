import Foundation

extension TestServer {
    /// The bytes the server sends at body offsets `offsets` of `/bytes/N` and `/chunked/N`
    /// (`version` 0), or of version `version` of `/resource/N`: byte `i` is `UInt8((i + version) % 251)`.
    ///
    /// For checking what a client received. One period is written byte by byte and then doubled
    /// by copying, so megabytes cost a few `memcpy`s — cheap even in a debug build, where a
    /// per-byte loop over megabytes holds a thread for a second.
    public static func patternBody(_ offsets: Range<Int>, version: Int = 0) -> Data {
        Data(periodic: PatternBytes.period, count: offsets.count) { UInt8((offsets.lowerBound + $0 + version) % PatternBytes.period) }
    }
}

extension Data {
    /// `count` bytes of a pattern that repeats every `period` bytes, byte `i` being `byte(i)` for
    /// `i < period`: one period is computed, then the buffer doubles by copying itself.
    ///
    /// - Parameters:
    ///   - period: The pattern's length, at least 1.
    ///   - count: How many bytes to make.
    ///   - byte: Byte `i` of the first period.
    init(periodic period: Int, count: Int, byte: (Int) -> UInt8) {
        precondition(period > 0, "a pattern's period is at least 1")
        var data = Data(capacity: count + period)
        for index in 0..<Swift.min(period, count) { data.append(byte(index)) }
        while data.count < count { data.append(data.prefix(Swift.min(data.count, count - data.count))) }
        self = data
    }
}
