// The provider IDs and sign-in method names Firebase's headers export to Swift as globals, for ported code
// (`user.providerData.contains { $0.providerID == GoogleAuthProviderID }`). ``AuthProviderID`` holds the same IDs.

/// `password`: email and password.
public let EmailAuthProviderID = "password"
/// `password`: the sign-in method of an email and password.
public let EmailPasswordAuthSignInMethod = "password"
/// `emailLink`: the sign-in method of an email link.
public let EmailLinkAuthSignInMethod = "emailLink"
/// `facebook.com`.
public let FacebookAuthProviderID = "facebook.com"
/// `facebook.com`: the sign-in method of Facebook.
public let FacebookAuthSignInMethod = "facebook.com"
/// `gc.apple.com`: Game Center (Apple platforms only).
public let GameCenterAuthProviderID = "gc.apple.com"
/// `gc.apple.com`: the sign-in method of Game Center (Apple platforms only).
public let GameCenterAuthSignInMethod = "gc.apple.com"
/// `github.com`.
public let GitHubAuthProviderID = "github.com"
/// `github.com`: the sign-in method of GitHub.
public let GitHubAuthSignInMethod = "github.com"
/// `google.com`.
public let GoogleAuthProviderID = "google.com"
/// `google.com`: the sign-in method of Google.
public let GoogleAuthSignInMethod = "google.com"
/// `phone`: phone numbers (``PhoneAuthProvider``).
public let PhoneAuthProviderID = "phone"
/// `phone`: the sign-in method of a phone number.
public let PhoneAuthSignInMethod = "phone"
/// `twitter.com`.
public let TwitterAuthProviderID = "twitter.com"
/// `twitter.com`: the sign-in method of Twitter.
public let TwitterAuthSignInMethod = "twitter.com"
