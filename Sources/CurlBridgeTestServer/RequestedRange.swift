import Foundation

/// What a `Range` header asks of a body of known size, as `/resource/N` understands it: a single
/// `bytes=A-` or `bytes=A-B`.
enum RequestedRange: Equatable {
    /// No range to honour: no header, or one this server does not take (several ranges, a suffix
    /// range `bytes=-S`, `B < A`, another unit, anything malformed). The whole body is sent,
    /// with `200`, as servers do.
    case whole
    /// Body bytes `A...B`, with `B` clamped to the last byte; sent with `206`.
    case satisfiable(ClosedRange<Int>)
    /// `A` at or past the end of the body; answered with `416`.
    case unsatisfiable

    /// Reads the `Range` header values `values` (usually one) against a body of `size` bytes.
    init(headerValues values: [String], size: Int) {
        guard values.count == 1, let (first, last) = Self.bounds(values[0]) else {
            self = .whole
            return
        }
        if let last, last < first {
            self = .whole
        } else if first >= size {
            self = .unsatisfiable
        } else {
            self = .satisfiable(first...min(last ?? Int.max, size - 1))
        }
    }

    /// `A` and `B` (`nil` for `bytes=A-`) of `bytes=A-B`, or `nil` if `value` is not of that form.
    private static func bounds(_ value: String) -> (first: Int, last: Int?)? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let unit = "bytes="
        guard trimmed.lowercased().hasPrefix(unit) else { return nil }
        let spec = trimmed.dropFirst(unit.count)
            .split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2, let first = decimal(spec[0]) else { return nil }
        if spec[1].isEmpty {
            return (first, nil)
        }
        guard let last = decimal(spec[1]) else { return nil }
        return (first, last)
    }

    /// `digits` as a non-negative integer, or `nil` unless it is one or more ASCII digits that fit.
    private static func decimal(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }
}
