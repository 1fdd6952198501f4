/// How a download treats its destination, its size, its integrity and failures.
public struct DownloadOptions: Sendable, Hashable {
    /// Whether an existing file at the destination is replaced (atomically, once the download is
    /// complete and verified); `true` by default. When `false`, an existing destination fails the
    /// download with ``RequestError/Code/destinationExists`` before anything is requested.
    public var replacesExistingFile: Bool
    /// Whether missing directories on the way to the destination are created; `false` by default,
    /// when a missing directory fails with ``RequestError/Code/fileIO`` before anything is requested.
    public var createsIntermediateDirectories: Bool
    /// The largest file the download may write, in bytes; `nil` (no limit) by default. A larger
    /// body fails with ``RequestError/Code/bodyTooLarge``. The transport's in-memory body cap does
    /// not apply to downloads.
    public var maximumSize: Int64?
    /// The SHA-256 the file must have, as 64 hexadecimal digits; `nil` by default. It is computed
    /// while writing, and a mismatch fails with ``RequestError/Code/integrityMismatch`` and leaves
    /// the destination untouched.
    public var expectedSHA256: String?
    /// Whether the file's SHA-256 is computed while writing and reported as
    /// ``DownloadResponse/sha256``; `false` by default, and implied by ``expectedSHA256``.
    ///
    /// It costs about 0.7 s of CPU per GiB on the transport's loop thread (OpenSSL with SHA
    /// extensions: ~1.5 GB/s), which a 1 GiB loopback download measured as 0.9× of raw libcurl's
    /// speed falling to 0.65× (Benchmarks, workload 4b): ask for it when you want the digest. A
    /// download that resumes reads its kept bytes once to hash them.
    public var computesSHA256: Bool
    /// The statuses whose body is the file; `200..<300` by default. Any other status fails with
    /// ``RequestError/Code/unacceptableStatus`` (the error's response carries the first 64 KiB of
    /// the error body) and writes nothing to the destination.
    public var acceptableStatusCodes: Range<Int>
    /// Whether a failed or cancelled download keeps its partial file and gives ``ResumeData`` in
    /// its error; `false` by default, so a failure leaves no file behind that nobody resumes.
    ///
    /// Ask for it when you will resume, and resume or ``ResumeData/discard()`` what you get: the
    /// partial file stays until then. It is kept only when the server named a validator (a strong
    /// `ETag` or `Last-Modified`) and did not content-encode the body. Two downloads keep it
    /// whatever this says, since their caller asked for resume data: one that resumes from
    /// ``ResumeData`` and fails again, and a callback download cancelled with
    /// ``DownloadTask/cancel(producingResumeData:)``.
    public var keepsPartialFileForResume: Bool

    /// Creates options; every parameter has the default documented on its property.
    public init(
        replacesExistingFile: Bool = true,
        createsIntermediateDirectories: Bool = false,
        maximumSize: Int64? = nil,
        expectedSHA256: String? = nil,
        computesSHA256: Bool = false,
        acceptableStatusCodes: Range<Int> = 200..<300,
        keepsPartialFileForResume: Bool = false
    ) {
        self.replacesExistingFile = replacesExistingFile
        self.createsIntermediateDirectories = createsIntermediateDirectories
        self.maximumSize = maximumSize
        self.expectedSHA256 = expectedSHA256
        self.computesSHA256 = computesSHA256
        self.acceptableStatusCodes = acceptableStatusCodes
        self.keepsPartialFileForResume = keepsPartialFileForResume
    }

    /// Whether the download hashes what it writes: asked for, or needed for the check.
    var hashesFile: Bool { computesSHA256 || expectedSHA256 != nil }

    /// A hasher for the file from its first byte when the download hashes it, else `nil`.
    func makeHasher() -> SHA256Hasher? { hashesFile ? SHA256Hasher() : nil }
}
