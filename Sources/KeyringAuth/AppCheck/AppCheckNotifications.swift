import Foundation

extension Notification.Name {
    /// Posted to `NotificationCenter.default`, with the ``AppCheck`` as its object, when the app's token changes in
    /// this process (a new one, or another process's taken from the keyring), as Firebase's.
    public static let AppCheckTokenDidChange = Notification.Name("FIRAppCheckAppCheckTokenDidChangeNotification")
}

/// The key of `Notification.Name.AppCheckTokenDidChange`'s `userInfo` whose value is the new token (a
/// `String`).
public let AppCheckTokenNotificationKey = "FIRAppCheckTokenNotificationKey"
/// The key of its `userInfo` whose value is the Firebase app's name.
public let AppCheckAppNameNotificationKey = "FIRAppCheckAppNameNotificationKey"
