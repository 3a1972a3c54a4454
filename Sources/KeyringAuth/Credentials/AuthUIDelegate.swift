/// Firebase's `AuthUIDelegate`, which presents the provider's page in a view controller on Apple's platforms. Linux
/// has none to present: the page opens in the user's browser (``OAuthProvider/browser``), and every method that takes
/// a delegate is called with `nil`. Kept so that code written for Firebase's Apple SDK compiles as it is.
public protocol AuthUIDelegate: AnyObject, Sendable {}
