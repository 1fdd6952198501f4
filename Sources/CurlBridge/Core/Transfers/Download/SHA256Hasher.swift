#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An incremental SHA-256, computed by the OpenSSL libcrypto that libcurl already loads into the
/// process: no cryptography of our own to compile, and OpenSSL's assembly to run.
///
/// Its functions are looked up at run time (the headers need `libssl-dev`, which a machine with
/// only `libcurl4-openssl-dev` lacks). Not for sharing: a download uses one under its lock.
final class SHA256Hasher {
    private let library: LibCrypto
    private let context: OpaquePointer

    /// Whether this process has a libcrypto to hash with.
    static var isAvailable: Bool { LibCrypto.shared != nil }

    /// A hasher over no bytes yet, or `nil` when no OpenSSL libcrypto can be found (a libcurl
    /// built on another TLS library, with no OpenSSL installed).
    init?() {
        guard let library = LibCrypto.shared, let context = library.newContext() else { return nil }
        guard library.initialize(context, library.sha256(), nil) == 1 else {
            library.freeContext(context)
            return nil
        }
        self.library = library
        self.context = context
    }

    deinit {
        library.freeContext(context)
    }

    /// Adds `bytes` to the digest.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        _ = library.update(context, base, bytes.count)
    }

    /// The digest of every byte added, in lowercase hex. Call it once: the hasher is spent after.
    func finalize() -> String {
        finalizeBytes().map(\.twoHexDigits).joined()
    }

    /// The digest of every byte added: 32 bytes. Call it once: the hasher is spent after.
    func finalizeBytes() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = library.finalize(context, &digest, &length)
        return Array(digest.prefix(Int(length)))
    }
}

/// The five EVP functions a SHA-256 needs, from the libcrypto already in the process (libcurl's),
/// else from `libcrypto.so.3` if one is installed.
private struct LibCrypto: Sendable {
    let newContext: @convention(c) () -> OpaquePointer?
    let freeContext: @convention(c) (OpaquePointer) -> Void
    let sha256: @convention(c) () -> OpaquePointer?
    let initialize: @convention(c) (OpaquePointer, OpaquePointer?, OpaquePointer?) -> Int32
    let update: @convention(c) (OpaquePointer, UnsafeRawPointer, Int) -> Int32
    let finalize: @convention(c) (OpaquePointer, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt32>) -> Int32

    /// Found once per process; `nil` when there is no libcrypto to use.
    static let shared: LibCrypto? = {
        // libcurl's libcrypto came into the process with it (OpenSSL 3 initialises itself on first use).
        let inProcess = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
        if let library = LibCrypto(handle: inProcess) { return library }
        for name in ["libcrypto.so.3", "libcrypto.so"] {
            if let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL), let library = LibCrypto(handle: handle) {
                return library
            }
        }
        return nil
    }()

    private init?(handle: UnsafeMutableRawPointer?) {
        func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let newContext = symbol("EVP_MD_CTX_new", as: (@convention(c) () -> OpaquePointer?).self),
            let freeContext = symbol("EVP_MD_CTX_free", as: (@convention(c) (OpaquePointer) -> Void).self),
            let sha256 = symbol("EVP_sha256", as: (@convention(c) () -> OpaquePointer?).self),
            let initialize = symbol(
                "EVP_DigestInit_ex", as: (@convention(c) (OpaquePointer, OpaquePointer?, OpaquePointer?) -> Int32).self),
            let update = symbol("EVP_DigestUpdate", as: (@convention(c) (OpaquePointer, UnsafeRawPointer, Int) -> Int32).self),
            let finalize = symbol(
                "EVP_DigestFinal_ex",
                as: (@convention(c) (OpaquePointer, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt32>) -> Int32).self)
        else { return nil }
        self.newContext = newContext
        self.freeContext = freeContext
        self.sha256 = sha256
        self.initialize = initialize
        self.update = update
        self.finalize = finalize
    }
}
