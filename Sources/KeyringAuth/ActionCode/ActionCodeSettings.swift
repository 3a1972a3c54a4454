import Foundation
import Synchronization

/// Where an email action link leads and how it opens, as Firebase's `ActionCodeSettings`: passed to
/// ``Auth/sendPasswordReset(withEmail:actionCodeSettings:)``, ``Auth/sendSignInLink(toEmail:actionCodeSettings:)``
/// and ``User/sendEmailVerification(with:)``.
///
/// A class with settable properties, as Firebase's, so that Firebase's code (`let settings = ActionCodeSettings();
/// settings.url = …`) builds unchanged; its properties are guarded by a lock, so it can be shared between threads.
/// ``iOSBundleID`` starts `nil` (a Linux app has no bundle); the Apple and Android fields are sent as given, for
/// links that open a mobile app of the same project.
public final class ActionCodeSettings: Sendable {
    private struct Values {
        var url: URL?
        var handleCodeInApp = false
        var linkDomain: String?
        var iOSBundleID: String?
        var androidPackageName: String?
        var androidMinimumVersion: String?
        var androidInstallIfNotAvailable = false
    }

    private let values = Mutex(Values())

    public init() {}

    /// The continue URL: where the person goes after the action (or, with ``handleCodeInApp``, the link the app
    /// opens). Its domain must be authorized in the Firebase console; sign-in links require one.
    public var url: URL? {
        get { values.withLock { $0.url } }
        set { values.withLock { $0.url = newValue } }
    }

    /// Whether the link opens the app directly (`true`: required for email-link sign-in) or Firebase's action
    /// page first, which then continues to ``url``.
    public var handleCodeInApp: Bool {
        get { values.withLock { $0.handleCodeInApp } }
        set { values.withLock { $0.handleCodeInApp = newValue } }
    }

    /// The Firebase Hosting domain the link uses instead of the project's default (`linkDomain`).
    public var linkDomain: String? {
        get { values.withLock { $0.linkDomain } }
        set { values.withLock { $0.linkDomain = newValue } }
    }

    /// The iOS bundle ID the link opens, for a mobile app of the project; `nil` by default.
    public var iOSBundleID: String? {
        get { values.withLock { $0.iOSBundleID } }
        set { values.withLock { $0.iOSBundleID = newValue } }
    }

    /// The Android package name the link opens, for a mobile app of the project.
    public var androidPackageName: String? {
        get { values.withLock { $0.androidPackageName } }
        set { values.withLock { $0.androidPackageName = newValue } }
    }

    /// The lowest Android app version the link opens.
    public var androidMinimumVersion: String? {
        get { values.withLock { $0.androidMinimumVersion } }
        set { values.withLock { $0.androidMinimumVersion = newValue } }
    }

    /// Whether an Android device without the app is offered to install it.
    public var androidInstallIfNotAvailable: Bool {
        get { values.withLock { $0.androidInstallIfNotAvailable } }
        set { values.withLock { $0.androidInstallIfNotAvailable = newValue } }
    }

    /// Sets the Android package name, whether to offer installing the app and the lowest version, as Firebase's.
    public func setAndroidPackageName(_ androidPackageName: String, installIfNotAvailable: Bool, minimumVersion: String?) {
        values.withLock {
            $0.androidPackageName = androidPackageName
            $0.androidInstallIfNotAvailable = installIfNotAvailable
            $0.androidMinimumVersion = minimumVersion
        }
    }

    /// Sets ``iOSBundleID``.
    public func setIOSBundleID(_ bundleID: String) {
        iOSBundleID = bundleID
    }

    /// The fields of `accounts:sendOobCode` these settings fill, in Identity Toolkit's names.
    var requestFields: [String: any Sendable] {
        values.withLock { values in
            var fields: [String: any Sendable] = [:]
            if let url = values.url { fields["continueUrl"] = url.absoluteString }
            if values.handleCodeInApp { fields["canHandleCodeInApp"] = true }
            if let linkDomain = values.linkDomain { fields["linkDomain"] = linkDomain }
            if let bundle = values.iOSBundleID { fields["iOSBundleId"] = bundle }
            if let package = values.androidPackageName {
                fields["androidPackageName"] = package
                if values.androidInstallIfNotAvailable { fields["androidInstallApp"] = true }
                if let version = values.androidMinimumVersion { fields["androidMinimumVersion"] = version }
            }
            return fields
        }
    }
}
