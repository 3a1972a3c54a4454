import Foundation

/// What a user's account, or one of its sign-in methods, says about the person, as Firebase's `UserInfo`:
/// ``User`` and each of its ``User/providerData`` (``ProviderUserInfo``) conform.
public protocol UserInfo: Sendable {
    /// `Firebase` for a ``User``; the provider's ID (`google.com`, `password`, …) for a sign-in method.
    var providerID: String { get }
    /// The user's ID: in the project for a ``User``, at the provider for a sign-in method.
    var uid: String { get }
    var displayName: String? { get }
    var photoURL: URL? { get }
    var email: String? { get }
    var phoneNumber: String? { get }
}

extension User: UserInfo {}
extension ProviderUserInfo: UserInfo {}
