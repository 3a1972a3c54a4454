import CSecret
import FoundationEssentials
import Logging
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// libsecret's file keyring, which ``SecretPortalStore`` prepares before libsecret opens it.
///
/// libsecret derives the file's key from the portal's secret with PBKDF2-SHA256 on every process start, at the count
/// of iterations the file records; a file it makes itself records 100,000 (libsecret's `secret-file-collection.c`),
/// about 17 ms of every launch. Stretching guards a secret a person chose. The portal's secret is 64 random bytes
/// (gnome-keyring's `gkd-secret-portal.c`, KWallet's `kwalletportalsecrets.cpp`), as hard to guess at one iteration
/// as at 100,000. So when the file does not exist yet, the store makes it, empty, recording ``iterationCount``;
/// libsecret keeps a file's count and salt whenever it writes the file again.
///
/// A file that exists is never replaced, but it is read first: libsecret 0.20 aborts the process (a `g_assert`) on a
/// file whose recorded salt size is not its salt's, which is reported here as
/// ``KeychainError/corruptKeyringFile(path:reason:)`` instead.
package enum PortalKeyringFile {
    /// The iterations of PBKDF2-SHA256 a file made here records: 0.2 ms of a launch.
    package static let iterationCount: UInt32 = 1_000
    /// The largest file read; libsecret reads a file whole.
    static let maximumSize = 64 << 20
    /// The format's magic and version (1.0), as libsecret writes them.
    static let header = Array("GnomeKeyring\n\r\0\n".utf8) + [1, 0]
    static let saltSize = 32
    /// The type of what follows the header: salt size, salt, iterations, modified (Unix seconds), usage count, items.
    static let contentsType = "(uayutua(a{say}ay))"

    /// Where libsecret keeps its file keyring: `SECRET_FILE_TEST_PATH`, or `keyrings/default.keyring` in the user's
    /// data folder (in a Flatpak, `~/.var/app/APP-ID/data`).
    package static var path: String {
        if let path = ProcessInfo.processInfo.environment["SECRET_FILE_TEST_PATH"], !path.isEmpty { return path }
        return String(cString: g_get_user_data_dir()) + "/keyrings/default.keyring"
    }

    /// Makes the file if it does not exist, or checks the one that does. Blocks on the file system.
    static func prepare(logger: Logger) throws(KeychainError) {
        let path = self.path
        switch SmallFile.read(path, limit: maximumSize) {
        case .missing:
            create(at: path, logger: logger)
        case .contents(let contents):
            if let reason = damage(in: contents) { throw .corruptKeyringFile(path: path, reason: reason) }
        case .tooLarge(let size):
            throw .corruptKeyringFile(path: path, reason: "it is \(size) bytes, more than the \(maximumSize) a keyring file is read up to")
        case .notRegular:
            // libsecret would wait on a FIFO for ever.
            throw .corruptKeyringFile(path: path, reason: "it is not a regular file (a FIFO, a device or a directory)")
        case .failed(let operation, let code):
            // libsecret reads it next and reports its own error.
            logger.debug("The portal keyring file cannot be read", metadata: [
                "path": "\(path)", "operation": "\(operation)", "error": "\(String(cString: strerror(code)))",
            ])
        }
    }

    /// The iterations the file at `path` records, or `nil` when it cannot be read as a keyring file.
    package static func recordedIterationCount(atPath path: String) -> UInt32? {
        guard case .contents(let contents) = SmallFile.read(path, limit: maximumSize), damage(in: contents) == nil else { return nil }
        return withContents(contents) { UInt32(littleEndian: GVariantValues.uint32(at: 2, of: $0)) }
    }

    // MARK: Reading

    /// Why libsecret cannot open `contents` as its file keyring, or `nil` when it can.
    static func damage(in contents: Data) -> String? {
        let magic = header.count - 2
        guard contents.count >= header.count, contents.prefix(magic).elementsEqual(header.prefix(magic)) else {
            return "it does not begin as a libsecret keyring file"
        }
        guard contents.dropFirst(magic).prefix(2).elementsEqual(header.suffix(2)) else {
            return "its format version is not 1.0, the one libsecret reads"
        }
        return withContents(contents) { variant in
            // libsecret writes normal form; anything else is cut short or damaged, and libsecret would read it as empty.
            guard g_variant_is_normal_form(variant) != 0 else { return "it is cut short or damaged" }
            let recorded = UInt32(littleEndian: GVariantValues.uint32(at: 0, of: variant))
            let salt = GVariantValues.bytes(at: 1, of: variant).count
            return Int(recorded) == salt ? nil : "it records a salt of \(recorded) bytes but holds \(salt)"
        }
    }

    /// `body` with what follows the header as a `GVariant` (read as untrusted data).
    private static func withContents<Result>(_ contents: Data, _ body: (OpaquePointer) -> Result) -> Result {
        let type = g_variant_type_new(contentsType)
        defer { g_variant_type_free(type) }
        let bytes = contents.dropFirst(header.count).withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        let variant = g_variant_ref_sink(g_variant_new_from_bytes(type, bytes, 0))!
        defer { g_variant_unref(variant) }
        return body(variant)
    }

    // MARK: Making

    /// An empty keyring file: a fresh salt, ``iterationCount``, modified now, no items.
    package static func emptyKeyring(salt: [UInt8], modified: Date) -> Data {
        let variant = g_variant_ref_sink(GVariantValues.tuple([
            g_variant_new_uint32(UInt32(salt.count).littleEndian), GVariantValues.bytes(Data(salt)),
            g_variant_new_uint32(iterationCount.littleEndian), g_variant_new_uint64(guint64(UInt64(modified.timeIntervalSince1970).littleEndian)),
            g_variant_new_uint32(UInt32(0).littleEndian), GVariantValues.array(of: "(a{say}ay)", []),
        ]))!
        defer { g_variant_unref(variant) }
        var serialized = [UInt8](repeating: 0, count: Int(g_variant_get_size(variant)))
        serialized.withUnsafeMutableBytes { g_variant_store(variant, $0.baseAddress) }
        return Data(header + serialized)
    }

    /// Makes an empty keyring file at `path`, never over one that appears meanwhile: written whole beside it, then
    /// linked to its name. A failure is logged and left to libsecret, which then makes the file itself.
    private static func create(at path: String, logger: Logger) {
        func failed(_ step: String) {
            logger.debug("The portal keyring file was left to libsecret", metadata: [
                "path": "\(path)", "step": "\(step)", "error": "\(String(cString: strerror(errno)))",
            ])
        }
        guard let slash = path.lastIndex(of: "/") else { return }
        let folder = String(path[..<slash])
        guard folder.isEmpty || g_mkdir_with_parents(folder, 0o700) == 0 else { return failed("making its folder") }
        var template = Array("\(folder)/.default.keyring.XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { g_mkstemp_full($0.baseAddress!, O_RDWR | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { return failed("making a file beside it") }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(temporary) }
        var salt = [UInt8](repeating: 0, count: saltSize)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        let written = SmallFile.writeAll(emptyKeyring(salt: salt, modified: Date()), to: descriptor)
        guard close(descriptor) == 0, written else { return failed("writing it") }
        guard link(temporary, path) == 0 || errno == EEXIST else { return failed("naming it") }
    }
}
