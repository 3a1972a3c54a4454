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
/// as at 100,000. So when the file does not exist yet, the store asks the portal for the secret once more, and when it
/// is 64 bytes long (``PortalSecret/expectedLength``) makes the file, empty, recording ``iterationCount``; a secret of
/// another length is not the one this relies on, and the file is left to libsecret, which makes it with its 100,000.
/// libsecret keeps a file's count and salt whenever it writes the file again.
///
/// A file that exists is never replaced, but it is read first: libsecret 0.20 aborts the process (a `g_assert`) on a
/// file whose recorded salt size is not its salt's, as a file cut short reads; that is reported here as
/// ``KeychainError/corruptKeyringFile(path:reason:)`` instead. Anything else (not a keyring file, another format
/// version) libsecret reports itself, and the file is left to it.
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

    /// What ``prepare(at:secretLength:logger:)`` did.
    enum Preparation: Equatable {
        /// The file was missing and is made, with ``iterationCount``.
        case made
        /// A file is there (or appeared meanwhile) and libsecret can open it, or reports itself why not.
        case found
        /// The file is missing and left for libsecret to make, for this reason.
        case leftToLibsecret(String)
    }

    /// Makes the file if it does not exist and the portal's secret is as expected, or checks the one that does, within
    /// `limit`. Blocks on the file system and the portal.
    static func prepare(limit: Duration, logger: Logger) throws(KeychainError) {
        _ = try prepare(at: path, logger: logger) {
            switch PortalSecret.length(limit: limit) {
            case .success(let length): return length
            case .failure(let failure):
                logger.debug("The portal's secret could not be measured", metadata: ["error": "\(failure.message)"])
                return nil
            }
        }
    }

    /// ``prepare(limit:logger:)`` for the file at `path`, with the secret's length from `secretLength` (asked only when
    /// the file is missing; `nil` when it is not known).
    static func prepare(at path: String, logger: Logger, secretLength: () -> Int?) throws(KeychainError) -> Preparation {
        switch SmallFile.read(path, limit: maximumSize) {
        case .missing:
            guard let length = secretLength() else {
                return leftToLibsecret("the portal's secret could not be measured", path: path, logger: logger)
            }
            guard length == PortalSecret.expectedLength else {
                return leftToLibsecret(
                    "the portal's secret is \(length) bytes, not the \(PortalSecret.expectedLength) random bytes few iterations rely on",
                    path: path, logger: logger)
            }
            return create(at: path, logger: logger)
        case .contents(let contents):
            if let reason = damage(in: contents) { throw .corruptKeyringFile(path: path, reason: reason) }
            return .found
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
            return .found
        }
    }

    private static func leftToLibsecret(_ reason: String, path: String, logger: Logger) -> Preparation {
        logger.notice("The portal keyring file is left to libsecret, which makes it with 100,000 iterations", metadata: [
            "path": "\(path)", "reason": "\(reason)",
        ])
        return .leftToLibsecret(reason)
    }

    /// The iterations the file at `path` records, or `nil` when it cannot be read as a keyring file of version 1.0.
    package static func recordedIterationCount(atPath path: String) -> UInt32? {
        guard case .contents(let contents) = SmallFile.read(path, limit: maximumSize), contents.starts(with: header),
            damage(in: contents) == nil
        else { return nil }
        return withContents(contents) { UInt32(littleEndian: GVariantValues.uint32(at: 2, of: $0)) }
    }

    // MARK: Reading

    /// Why libsecret 0.20 would abort on `contents`, or `nil` when it would not: the salt's recorded size is not the
    /// size of the salt as libsecret reads it (`g_assert (n_data == salt_size)` in `secret-file-collection.c`), which a
    /// file cut short also gives. A file that is not a keyring file, or of another format version, is libsecret's to
    /// report (it fails with "file header mismatch" or "version mismatch"): `nil`.
    static func damage(in contents: Data) -> String? {
        guard contents.starts(with: header) else { return nil }
        return withContents(contents) { variant in
            let recorded = UInt32(littleEndian: GVariantValues.uint32(at: 0, of: variant))
            let salt = GVariantValues.bytes(at: 1, of: variant).count
            guard Int(recorded) != salt else { return nil }
            // libsecret writes normal form; anything else was cut short or damaged after it wrote the file.
            return isNormalForm(contents)
                ? "it records a salt of \(recorded) bytes but holds \(salt)"
                : "it is cut short or damaged (it records a salt of \(recorded) bytes, and \(salt) are read)"
        }
    }

    /// Whether what follows the header is in GVariant's normal form, checked as untrusted data.
    private static func isNormalForm(_ contents: Data) -> Bool {
        withContents(contents, trusted: false) { g_variant_is_normal_form($0) != 0 }
    }

    /// `body` with what follows the header as a `GVariant`, by default read as libsecret reads it (trusted: a damaged
    /// file's values are then what libsecret sees; GVariant bounds every read either way).
    private static func withContents<Result>(_ contents: Data, trusted: Bool = true, _ body: (OpaquePointer) -> Result) -> Result {
        let type = g_variant_type_new(contentsType)
        defer { g_variant_type_free(type) }
        let bytes = contents.dropFirst(header.count).withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        let variant = g_variant_ref_sink(g_variant_new_from_bytes(type, bytes, trusted ? 1 : 0))!
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

    /// Makes an empty keyring file at `path`, never over one that appears meanwhile: written whole and flushed to disk
    /// beside it, then linked to its name (``SmallFile/place(_:at:_:)``). A failure is logged and left to libsecret,
    /// which then makes the file itself.
    private static func create(at path: String, logger: Logger) -> Preparation {
        guard let slash = path.lastIndex(of: "/") else { return .leftToLibsecret("its path names no folder") }
        let folder = String(path[..<slash])
        guard folder.isEmpty || g_mkdir_with_parents(folder, 0o700) == 0 else {
            return leftToLibsecret("its folder could not be made: \(String(cString: strerror(errno)))", path: path, logger: logger)
        }
        var salt = [UInt8](repeating: 0, count: saltSize)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        do throws(SmallFile.Failure) {
            return try SmallFile.place(emptyKeyring(salt: salt, modified: Date()), at: path, .ifMissing) ? .made : .found
        } catch {
            return leftToLibsecret("it could not be written: \(error)", path: path, logger: logger)
        }
    }
}
