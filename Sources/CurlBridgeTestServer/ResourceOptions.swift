/// The query parameters of `/resource/N`.
struct ResourceOptions {
    /// Accepted `version`s.
    static let versions = 0...100_000
    /// What the parameters must be, for the `400` when they are not.
    static let requirements =
        "version must be an integer in \(versions), cut and stall-after ones in \(Router.byteCounts), "
        + "weak-etag, no-etag, no-validators, just-modified, ignore-range and ignore-if-range 0 or 1, "
        + "and tag a run of letters, digits and dashes"

    /// `version`: which version of the resource to send (default 1).
    let version: Int
    /// `cut`: how many body bytes to send before closing the connection; `nil` (the default) for all.
    let cut: Int?
    /// `stall-after`: how many body bytes to send before sending nothing more, with the connection
    /// left open; `nil` (the default) for all.
    let stall: Int?
    /// `weak-etag=1` makes them weak, `no-etag=1` leaves `Last-Modified` alone, `no-validators=1`
    /// drops them (default: strong).
    let validatorStyle: ResourceValidators.Style
    /// `tag=NAME`: the entity tag is `"NAME"` whatever the size and version; `nil` (the default)
    /// for `"res-N-vV"`.
    let tag: String?
    /// `just-modified=1`: `Date` is one second after `Last-Modified`, so the date is a weak
    /// validator (RFC 9110 §8.8.2.2); by default `Date` is the time of the response.
    let justModified: Bool
    /// `false` after `ignore-range=1`: no `Accept-Ranges`, and `Range` is not looked at.
    let honoursRanges: Bool
    /// `false` after `ignore-if-range=1`: `Range` is honoured whatever `If-Range` says, as a
    /// broken server or CDN does.
    let honoursIfRange: Bool
    /// `basic=TOKEN`: requests without `Authorization: Basic TOKEN` (the base64 of `user:password`)
    /// get `401`; the password itself never appears in the URL.
    let basicToken: String?

    /// Reads the options from `parameters`; `nil` if one is malformed or out of range.
    init?(_ parameters: QueryParameters) {
        guard let version = Router.integer(parameters["version"], in: Self.versions, default: 1),
              let weakETag = Self.switchIsOn(parameters["weak-etag"]),
              let noValidators = Self.switchIsOn(parameters["no-validators"]),
              let ignoreRange = Self.switchIsOn(parameters["ignore-range"]),
              let ignoreIfRange = Self.switchIsOn(parameters["ignore-if-range"]),
              let noETag = Self.switchIsOn(parameters["no-etag"]),
              let justModified = Self.switchIsOn(parameters["just-modified"])
        else { return nil }
        if let tag = parameters["tag"] {
            guard !tag.isEmpty, tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return nil }
        }
        guard let cut = Self.byteCount(parameters["cut"]), let stall = Self.byteCount(parameters["stall-after"]) else {
            return nil
        }
        self.cut = cut
        self.stall = stall
        self.version = version
        self.validatorStyle = noValidators ? .none : weakETag ? .weak : noETag ? .dateOnly : .strong
        self.tag = parameters["tag"]
        self.justModified = justModified
        self.honoursRanges = !ignoreRange
        self.honoursIfRange = !ignoreIfRange
        self.basicToken = parameters["basic"]
    }

    /// An optional byte count: `.some(nil)` when absent, `nil` when malformed.
    private static func byteCount(_ value: String?) -> Int?? {
        guard let value else { return .some(nil) }
        return Router.integer(value, in: Router.byteCounts).map { .some($0) }
    }

    /// An on/off switch's state: `false` when absent or `0`, `true` for `1`, `nil` otherwise.
    private static func switchIsOn(_ value: String?) -> Bool? {
        Router.integer(value, in: 0...1, default: 0).map { $0 == 1 }
    }
}
