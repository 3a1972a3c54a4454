import CSecret

/// libsecret's process-wide `SecretService`, with a session open.
///
/// `@unchecked Sendable`: a `SecretService` is a `GDBusProxy`, whose calls are thread-safe; the
/// handle only holds one reference and releases it in `deinit`.
final class SecretServiceHandle: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<SecretService>

    init(taking pointer: UnsafeMutablePointer<SecretService>) { self.pointer = pointer }

    deinit { g_object_unref(pointer) }
}
