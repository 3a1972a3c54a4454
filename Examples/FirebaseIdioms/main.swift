// Firebase's own idioms around Auth calls, each written the way Firebase's samples and documentation write it
// (firebase/quickstart-ios AuthenticationExample, firebase/snippets-ios, the Auth documentation's Swift
// snippets, firebase-ios-sdk's sample and API tests), with only the import switched. The tests run it against
// the Auth emulator on a throwaway keyring and check that every idiom printed `ok`:
//
//     GOOGLE_SERVICE_INFO_PATH=Examples/FirebaseIdioms/GoogleService-Info.plist \
//         FIREBASE_AUTH_EMULATOR_HOST=127.0.0.1:9099 firebase-idioms-example
//
// Where a person would act (open an email's link, read their authenticator app, ask the app's server for a
// custom token) it prints `ask WHAT` and reads the answer from standard input.
#if canImport(FirebaseAuth)
import FirebaseAuth
import FirebaseCore
#else
import KeyringAuth
#endif
import Foundation

FirebaseApp.configure()
let run = String(UUID().uuidString.prefix(8)).lowercased()
let email = "idioms-\(run)@example.com"
let password = "idioms-password"

/// Records that an idiom behaved as Firebase documents it, or says how it did not.
func check(_ idiom: String, _ passed: Bool, _ detail: @autoclosure () -> String = "") {
    print(passed ? "ok \(idiom)" : "FAILED \(idiom) \(detail())")
}

/// What a person supplies: an email's link, an authenticator code, a custom token from the app's server.
func ask(_ what: String) -> String {
    print("ask \(what)")
    return readLine() ?? ""
}

/// A completion-handler call awaited, as a sample's test awaits one.
func completion<T: Sendable>(_ start: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
    await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
}

// MARK: State listeners

var handle: AuthStateDidChangeListenerHandle?
let heard = LockedLog()
handle = Auth.auth().addStateDidChangeListener { auth, user in
    heard.append(user?.uid ?? "nil")
}
let tokenHandle = Auth.auth().addIDTokenDidChangeListener { _, user in heard.append("token \(user?.uid ?? "nil")") }

// MARK: Creating an account: the issue's pattern, in top-level async code and in a throwing function

do {
    _ = try await Auth.auth().createUser(withEmail: email, password: password)
    check("createUser async", Auth.auth().currentUser?.email == email)
} catch let error as NSError where error.domain == AuthErrorDomain && error.code == AuthErrorCode.emailAlreadyInUse.rawValue {
    check("createUser async", false, "the new address was in use")
}

func createAgain() async throws -> String {
    do {
        _ = try await Auth.auth().createUser(withEmail: email, password: password)
        return "created"
    } catch let error as NSError where error.domain == AuthErrorDomain && error.code == AuthErrorCode.emailAlreadyInUse.rawValue {
        return "already there"
    }
}
check("catch let error as NSError where … && … in a throwing function", try await createAgain() == "already there")

// Same check with `??` beside the cast, in a throwing function.
func displayNameOrEmail() async throws -> String {
    do {
        let result = try await Auth.auth().signIn(withEmail: email, password: password)
        return result.user.displayName ?? result.user.email ?? "?"
    } catch let error as NSError where error.code == AuthErrorCode.wrongPassword.rawValue {
        return "wrong password"
    }
}
check("catch let error as NSError beside ?? in a throwing function", try await displayNameOrEmail() == email)

// MARK: Password sign-in, completion handlers

let signedIn: (String?, String?) = await completion { done in
    Auth.auth().signIn(withEmail: email, password: password) { authResult, error in
        guard let user = authResult?.user, error == nil else {
            done((nil, error!.localizedDescription))
            return
        }
        done((user.email, nil))
    }
}
check("signIn completion with guard let user = authResult?.user, error == nil", signedIn.0 == email, "\(signedIn)")

let wrongCode: AuthErrorCode? = await completion { done in
    Auth.auth().signIn(withEmail: email, password: "not-the-password") { _, error in
        if let error = error as NSError? {
            done(AuthErrorCode(rawValue: error.code))
        } else {
            done(nil)
        }
    }
}
check("if let error = error as NSError? then AuthErrorCode(rawValue:)",
      wrongCode == .wrongPassword || wrongCode == .invalidCredential, "\(String(describing: wrongCode))")

let switched: String = await completion { done in
    Auth.auth().signIn(withEmail: "nobody-\(run)@example.com", password: password) { _, error in
        guard let error = error else { return done("no error") }
        let authError = error as NSError
        switch AuthErrorCode(rawValue: authError.code) {
        case .userNotFound, .invalidCredential: done("no account")
        case .wrongPassword: done("wrong password")
        case .networkError: done("offline")
        default: done("other: \(authError.userInfo[AuthErrorUserInfoNameKey] ?? "")")
        }
    }
}
check("switch AuthErrorCode(rawValue: error.code)", switched == "no account", switched)

let weak: String = await completion { done in
    Auth.auth().currentUser?.updatePassword(to: "abc") { error in
        let error = error as NSError?
        done(error?.userInfo[NSLocalizedFailureReasonErrorKey] as? String ?? "no reason")
    }
}
check("a weak password's reason under NSLocalizedFailureReasonErrorKey", weak.lowercased().contains("6 characters"), weak)

// MARK: Managing users

if let user = Auth.auth().currentUser {
    let changeRequest = user.createProfileChangeRequest()
    changeRequest.displayName = "Idiom Tester"
    let committed: Error? = await completion { done in changeRequest.commitChanges { error in done(error) } }
    check("createProfileChangeRequest, commitChanges { error in }", committed == nil && user.displayName == "Idiom Tester")
    try await user.reload()
    let token: String? = await completion { done in user.getIDTokenForcingRefresh(true) { idToken, error in done(idToken) } }
    check("getIDTokenForcingRefresh(true) { idToken, error in }", token?.isEmpty == false)
    let result = try await user.getIDTokenResult(forcingRefresh: false)
    check("getIDTokenResult().signInProvider, .claims", result.signInProvider == "password" && result.claims["email"] as? String == email)
    for profile in user.providerData {
        check("for profile in user.providerData", profile.providerID == EmailAuthProviderID && profile.email == email)
    }
    let verification: Error? = await completion { done in user.sendEmailVerification { error in done(error) } }
    check("sendEmailVerification { error in }", verification == nil)
}

// MARK: Password reset, through the email's link

try await Auth.auth().sendPasswordReset(withEmail: email)
let resetLink = ask("email-link PASSWORD_RESET \(email)")
if let code = ActionCodeURL(link: resetLink)?.code {
    let info = try await Auth.auth().checkActionCode(code)
    check("checkActionCode, info.operation, info.email", info.operation == .passwordReset && info.email == email)
    let address = try await Auth.auth().verifyPasswordResetCode(code)
    try await Auth.auth().confirmPasswordReset(withCode: code, newPassword: password + "-2")
    check("verifyPasswordResetCode, confirmPasswordReset", address == email)
} else {
    check("ActionCodeURL(link:)?.code", false, resetLink)
}

// MARK: Signing out, as the samples do

let firebaseAuth = Auth.auth()
do {
    try firebaseAuth.signOut()
    check("do { try signOut() } catch let signOutError as NSError", Auth.auth().currentUser == nil)
} catch let signOutError as NSError {
    print("Error signing out: %@", signOutError)
}

// MARK: Anonymous, then linking an email and password

let anonymous: (String?, Bool) = await completion { done in
    Auth.auth().signInAnonymously { authResult, error in
        guard let user = authResult?.user else { return done((nil, false)) }
        done((user.uid, user.isAnonymous))
    }
}
check("signInAnonymously { authResult, error in }", anonymous.0 != nil && anonymous.1)
if let user = Auth.auth().currentUser {
    let credential = EmailAuthProvider.credential(withEmail: "linked-\(run)@example.com", password: password)
    let linked = try await user.link(with: credential)
    check("link(with: EmailAuthProvider.credential(…))", linked.user.uid == anonymous.0 && !linked.user.isAnonymous)
    let relinked: Int? = await completion { done in user.link(with: credential) { _, error in done((error as NSError?)?.code) } }
    check("a second link: providerAlreadyLinked as NSError", relinked == AuthErrorCode.providerAlreadyLinked.rawValue)
    _ = try await user.unlink(fromProvider: EmailAuthProviderID)
    check("unlink(fromProvider:)", user.providerData.isEmpty)
    try await user.delete()
    check("user.delete()", Auth.auth().currentUser == nil)
}

// MARK: Custom token, from the app's server

let customToken = ask("custom-token idioms-\(run)")
let custom = try await Auth.auth().signIn(withCustomToken: customToken)
check("signIn(withCustomToken:)", custom.user.uid == "idioms-\(run)")
try Auth.auth().signOut()

// MARK: Email link sign-in

let actionCodeSettings = ActionCodeSettings()
actionCodeSettings.url = URL(string: "https://example.com/finishSignUp?cartId=1234")
actionCodeSettings.handleCodeInApp = true
actionCodeSettings.setAndroidPackageName("com.example.android", installIfNotAvailable: false, minimumVersion: "12")
let linkEmail = "link-\(run)@example.com"
let sent: Error? = await completion { done in
    Auth.auth().sendSignInLink(toEmail: linkEmail, actionCodeSettings: actionCodeSettings) { error in done(error) }
}
check("sendSignInLink(toEmail:actionCodeSettings:) { error in }", sent == nil)
let signInLink = ask("email-link EMAIL_SIGNIN \(linkEmail)")
if Auth.auth().isSignIn(withEmailLink: signInLink) {
    let result = try await Auth.auth().signIn(withEmail: linkEmail, link: signInLink)
    check("isSignIn(withEmailLink:), signIn(withEmail:link:)", result.user.email == linkEmail && result.additionalUserInfo?.isNewUser == true)
} else {
    check("isSignIn(withEmailLink:)", false, signInLink)
}

// MARK: TOTP second factor: enroll, then sign in with the resolver

if let user = Auth.auth().currentUser {
    let session = try await user.multiFactor.session()
    let totpSecret = try await TOTPMultiFactorGenerator.generateSecret(with: session)
    let url = totpSecret.generateQRCodeURL(withAccountName: user.email ?? "", issuer: "Idioms")
    check("generateQRCodeURL(withAccountName:issuer:)", url.hasPrefix("otpauth://totp/"))
    print("totp secret \(totpSecret.sharedSecretKey())")
    let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: totpSecret, oneTimePassword: ask("totp-code"))
    do {
        try await user.multiFactor.enroll(with: assertion, displayName: "TOTP")
        check("multiFactor.enroll(with:displayName:)", user.multiFactor.enrolledFactors.map(\.factorID) == [TOTPMultiFactorID])
    } catch {
        check("multiFactor.enroll(with:displayName:)", false, error.localizedDescription)
    }
    try Auth.auth().signOut()
}
do {
    try await Auth.auth().sendSignInLink(toEmail: linkEmail, actionCodeSettings: actionCodeSettings)
    _ = try await Auth.auth().signIn(withEmail: linkEmail, link: ask("email-link EMAIL_SIGNIN \(linkEmail)"))
    check("a first factor of an account with a second one asks for it", false, "signed in without the second factor")
} catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
    let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver
    var resolved = false
    for hint in resolver.hints where hint.factorID == TOTPMultiFactorID {
        let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid, oneTimePassword: ask("totp-code"))
        let result = try await resolver.resolveSignIn(with: assertion)
        resolved = result.user.email == linkEmail
    }
    check("secondFactorRequired, userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver, resolveSignIn", resolved)
}
if let user = Auth.auth().currentUser, let factor = user.multiFactor.enrolledFactors.first {
    let withdrawn: Error? = await completion { done in user.multiFactor.unenroll(with: factor) { error in done(error) } }
    check("multiFactor.unenroll(with:) { error in }", withdrawn == nil && user.multiFactor.enrolledFactors.isEmpty)
}

// MARK: Access groups, as Firebase's shared-keychain guide writes them

do {
    try Auth.auth().useUserAccessGroup("TEAMID.com.example.idioms")
    check("try useUserAccessGroup(_:)", Auth.auth().userAccessGroup == "TEAMID.com.example.idioms")
    let stored = try Auth.auth().getStoredUser(forAccessGroup: "TEAMID.com.example.idioms")
    check("getStoredUser(forAccessGroup:) is optional", stored == nil)
    try Auth.auth().useUserAccessGroup(nil)
} catch let error as NSError {
    check("useUserAccessGroup", false, error.localizedDescription)
}

// MARK: Settings and provider IDs

Auth.auth().useAppLanguage()
Auth.auth().languageCode = Auth.auth().languageCode ?? "en"
let providerID: AuthProviderID = .custom("microsoft.com")
switch providerID {
case .apple, .google: check("switch on AuthProviderID with .custom(…)", false)
case .custom("microsoft.com"): check("switch on AuthProviderID with .custom(…)", Auth.auth().languageCode != nil)
default: check("switch on AuthProviderID with .custom(…)", false)
}

// MARK: The async sequence of state changes (Firebase 11's authStateChanges)

for await user in Auth.auth().authStateChanges {
    check("for await user in Auth.auth().authStateChanges", user?.uid == Auth.auth().currentUser?.uid, "\(String(describing: user?.uid))")
    break
}

// MARK: Listeners removed; what they heard

try? Auth.auth().signOut()
Auth.auth().removeStateDidChangeListener(handle!)
Auth.auth().removeIDTokenDidChangeListener(tokenHandle)
check("addStateDidChangeListener { auth, user in } heard the changes", heard.entries.first == "nil" && heard.entries.count > 4, "\(heard.entries)")
print("done")

/// What the listeners heard, from whichever queue calls them.
final class LockedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [String] = []
    func append(_ entry: String) { lock.withLock { log.append(entry) } }
    var entries: [String] { lock.withLock { log } }
}
