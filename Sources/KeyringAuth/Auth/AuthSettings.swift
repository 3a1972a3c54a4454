import Foundation
import Synchronization

/// Settings of an ``Auth``, as Firebase's `AuthSettings` (``Auth/settings``).
public final class AuthSettings: Sendable {
    private let disabledForTesting: Mutex<Bool>

    init(appVerificationDisabledForTesting: Bool = false) {
        disabledForTesting = Mutex(appVerificationDisabledForTesting)
    }

    /// Whether phone sign-in skips app verification (no reCAPTCHA page): for the emulator, and for the test numbers a
    /// project lists in its console, which need no verification. ``Auth/useEmulator(withHost:port:)`` sets it, as
    /// Firebase's Apple SDK does, and so does an ``Auth`` made for the emulator `FIREBASE_AUTH_EMULATOR_HOST` names.
    public var isAppVerificationDisabledForTesting: Bool {
        get { disabledForTesting.withLock { $0 } }
        set { disabledForTesting.withLock { $0 = newValue } }
    }

    /// The same setting under the name of Firebase's stored property.
    public var appVerificationDisabledForTesting: Bool {
        get { isAppVerificationDisabledForTesting }
        set { isAppVerificationDisabledForTesting = newValue }
    }

    /// A copy with the same setting, as Firebase's `copy(with:)` (`NSCopying`).
    public func copy(with zone: NSZone? = nil) -> Any {
        AuthSettings(appVerificationDisabledForTesting: isAppVerificationDisabledForTesting)
    }
}
