import CSecret

/// A `GError` copied into Swift. Making one frees the C error at once, so no `GError`
/// outlives the call that produced it.
struct GLibError: Error, Sendable {
    /// The error domain's name, for example `g-io-error-quark`.
    let domain: String
    let code: Int32
    /// The message, without GDBus's `GDBus.Error:NAME:` prefix.
    let message: String
    /// The D-Bus error name, when the error came from the peer.
    let remoteName: String?
    private let quark: GQuark

    /// Copies `error` and frees it.
    init(taking error: UnsafeMutablePointer<GError>) {
        defer { g_error_free(error) }
        var remoteName: String?
        if g_dbus_error_is_remote_error(error) != 0, let name = g_dbus_error_get_remote_error(error) {
            defer { g_free(name) }
            remoteName = String(cString: name)
            g_dbus_error_strip_remote_error(error)
        }
        self.quark = error.pointee.domain
        self.domain = String(cString: g_quark_to_string(error.pointee.domain))
        self.code = error.pointee.code
        self.message = error.pointee.message.map { String(cString: $0) } ?? "no message"
        self.remoteName = remoteName
    }

    private func isIOError(_ value: GIOErrorEnum) -> Bool {
        quark == g_io_error_quark() && code == Int32(value.rawValue)
    }

    private func isDBusError(_ value: GDBusError) -> Bool {
        quark == g_dbus_error_quark() && code == Int32(value.rawValue)
    }

    /// libsecret's error `value`, also when the provider's reply reached GDBus as an unmapped remote
    /// error (a call made without libsecret before libsecret registered its error names).
    private func isSecretError(_ value: SecretError) -> Bool {
        if quark == secret_error_get_quark() && code == Int32(value.rawValue) { return true }
        switch value {
        case SECRET_ERROR_IS_LOCKED: return remoteName == "org.freedesktop.Secret.Error.IsLocked"
        case SECRET_ERROR_NO_SUCH_OBJECT: return remoteName == "org.freedesktop.Secret.Error.NoSuchObject"
        default: return false
        }
    }

    /// The call was cancelled (by its deadline).
    var isCancelled: Bool { isIOError(G_IO_ERROR_CANCELLED) }

    /// Nobody answers at the address called: no provider, or a provider that went away.
    /// libsecret's shared service keeps addressing a provider's unique name after it restarts,
    /// which fails this way until the service is disconnected.
    var isProviderGone: Bool {
        isDBusError(G_DBUS_ERROR_SERVICE_UNKNOWN) || isDBusError(G_DBUS_ERROR_NAME_HAS_NO_OWNER)
            || isDBusError(G_DBUS_ERROR_NO_REPLY) || isIOError(G_IO_ERROR_CLOSED)
            || isDBusError(G_DBUS_ERROR_DISCONNECTED)
    }

    /// The provider has no object at the path called, or says there is no such object (but not
    /// when the object it cannot find is the client's session: see ``isBrokenSession``).
    var isNoSuchObject: Bool {
        (isSecretError(SECRET_ERROR_NO_SUCH_OBJECT) || isDBusError(G_DBUS_ERROR_UNKNOWN_METHOD)
            || isDBusError(G_DBUS_ERROR_UNKNOWN_OBJECT)) && !isBrokenSession
    }

    /// The client's encrypted session failed: the provider cannot find it (KWallet: "Can't find
    /// session /org/freedesktop/secrets/session/N"), or libsecret could not decrypt what came
    /// back ("received an invalid or unencryptable secret"). KWallet 5 does both about once in a
    /// hundred calls (KDE bug 514194); a fresh session cures it.
    var isBrokenSession: Bool {
        isSecretError(SECRET_ERROR_PROTOCOL) || message.contains("Can't find session")
            || remoteName == "org.freedesktop.Secret.Error.NoSession"
    }

    /// The provider refused because the collection or item is locked.
    var isLocked: Bool { isSecretError(SECRET_ERROR_IS_LOCKED) }

    /// D-Bus's or GIO's own time limit passed.
    var isDBusTimeout: Bool {
        isDBusError(G_DBUS_ERROR_TIMEOUT) || isDBusError(G_DBUS_ERROR_TIMED_OUT) || isIOError(G_IO_ERROR_TIMED_OUT)
    }

    /// The error as a ``KeychainError/underlying(domain:code:message:)``.
    var underlying: KeychainError {
        .underlying(domain: remoteName ?? domain, code: Int(code), message: message)
    }
}

extension GLib {
    /// Runs `body` with a `GError **` and turns a reported error into a ``GLibError``.
    static func withError<Result>(
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Result
    ) throws(GLibError) -> Result {
        var error: UnsafeMutablePointer<GError>?
        let result = body(&error)
        if let error { throw GLibError(taking: error) }
        return result
    }
}
