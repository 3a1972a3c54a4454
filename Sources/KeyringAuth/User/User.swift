import Dispatch
import Foundation
import Synchronization

/// A signed-in user, as Firebase's `User`. Its properties reflect the record last loaded or saved;
/// ``reload()`` refreshes them from the backend.
public final class User: Sendable {
    let record: Mutex<StoredUserRecord>
    private let owner: Mutex<Owner>
    /// The token refresh under way for this user, which every caller that needs one joins.
    let tokenRefresh = SharedTokenRefresh()

    private struct Owner: Sendable {
        weak var auth: Auth?
        /// The owner's callback queue, kept after the owner is gone.
        var callbackQueue: DispatchQueue
    }

    init(record: StoredUserRecord, auth: Auth) {
        self.record = Mutex(record)
        self.owner = Mutex(Owner(auth: auth, callbackQueue: auth.configuration.callbackQueue))
    }

    var storedRecord: StoredUserRecord { record.withLock { $0 } }

    /// Makes `auth` the owner that this user's operations go through.
    func adopt(by auth: Auth) { owner.withLock { $0 = Owner(auth: auth, callbackQueue: auth.configuration.callbackQueue) } }
    var auth: Auth? { owner.withLock { $0.auth } }
    /// Where completion handlers of this user's calls run: the callback queue of the `Auth` it belongs,
    /// or belonged, to.
    var callbackQueue: DispatchQueue { owner.withLock { $0.callbackQueue } }

    /// The ``Auth`` this user belongs to.
    func owningAuth() throws(AuthError) -> Auth {
        guard let auth else { throw AuthError(.internalError, "The user's Auth instance no longer exists.") }
        return auth
    }

    /// The user's ID, unique within the project.
    public var uid: String { storedRecord.uid }
    /// Whether the user signed in anonymously.
    public var isAnonymous: Bool { storedRecord.isAnonymous }
    public var email: String? { storedRecord.email }
    public var isEmailVerified: Bool { storedRecord.emailVerified }
    public var displayName: String? { storedRecord.displayName }
    public var photoURL: URL? { storedRecord.photoURL }
    public var phoneNumber: String? { storedRecord.phoneNumber }
    /// The sign-in methods linked to the account.
    public var providerData: [ProviderUserInfo] { storedRecord.providerData }
    public var metadata: UserMetadata {
        let record = storedRecord
        return UserMetadata(creationDate: record.creationDate, lastSignInDate: record.lastSignInDate)
    }
    /// ``isAnonymous``, under the name Firebase keeps for Objective-C.
    public func anonymous() -> Bool { isAnonymous }
    /// ``isEmailVerified``, under the name Firebase keeps for Objective-C.
    public func emailVerified() -> Bool { isEmailVerified }
    /// The tenant the user belongs to, if any.
    public var tenantID: String? { storedRecord.tenantID }
    /// `"Firebase"`, as Firebase's `User.providerID`: the user is Firebase's; the sign-in methods'
    /// providers are in ``providerData``.
    public var providerID: String { "Firebase" }
    /// The refresh token, as Firebase's `User.refreshToken`: for advanced uses only, such as getting ID
    /// tokens independently. A secret: it is never logged, and neither ``description`` nor the user's
    /// mirror (`dump`, `String(reflecting:)`) shows it.
    public var refreshToken: String? { storedRecord.tokens.refreshToken }
    /// The ID token as stored now, without a refresh (``getIDToken(forcingRefresh:)`` refreshes one that expires):
    /// what tells the broker's clients that the token changed.
    package var storedIDToken: String { storedRecord.tokens.idToken }

    /// The user's ID token, refreshed first when it expires within five minutes or when asked.
    ///
    /// One refresh runs at a time: calls that need one while it is under way (forced or not) wait for
    /// it and get its token, so any number of concurrent calls send one request. A refreshed token is
    /// saved to the keychain item of the app's current group, so the other apps of the group get it
    /// too; when the user was signed out or replaced meanwhile, it is returned but saved nowhere.
    /// - Throws: ``AuthError``; a refresh refused for good signs the user out.
    public func getIDToken(forcingRefresh: Bool = false) async throws -> String {
        try await idToken(forcingRefresh: forcingRefresh)
    }

    /// ``getIDToken(forcingRefresh:)`` with its error typed, for the package's own calls.
    func idToken(forcingRefresh: Bool = false) async throws(AuthError) -> String {
        let current = storedRecord
        if !forcingRefresh && current.tokens.expirationDate.timeIntervalSinceNow > 5 * 60 {
            return current.tokens.idToken
        }
        let auth = try owningAuth()
        return try await tokenRefresh.join(logger: auth.logger) { () async throws(AuthError) in try await auth.refreshTokens(of: self) }.idToken
    }

    /// The user's ID token and what it says (expiry, sign-in time, sign-in method, custom claims),
    /// decoded locally as Firebase's `getIDTokenResult(forcingRefresh:)` does; the token is refreshed
    /// first when ``getIDToken(forcingRefresh:)`` would refresh it.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/malformedJWT`` when the token is not a Firebase ID token
    ///   (its decoding is bounded: the stored token may come from any process of the session), or what a
    ///   refresh throws.
    public func getIDTokenResult(forcingRefresh: Bool = false) async throws -> AuthTokenResult {
        try AuthTokenResult(token: try await idToken(forcingRefresh: forcingRefresh))
    }

    /// Links a sign-in method to the account, as Firebase's `link(with:)`: an identity provider's
    /// credential (`accounts:signInWithIdp` with the user's ID token) or an email and password
    /// (`accounts:signUp` with it). An anonymous user becomes permanent. The new tokens and sign-in
    /// methods (``providerData``) are saved; when the user is the current user of a shared group, every
    /// running app of the group gets the permanent user at once (live sync).
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/providerAlreadyLinked`` when the user already has a method
    ///   of that provider, ``AuthErrorCode/credentialAlreadyInUse`` when another account has the credential
    ///   (its ``AuthError/updatedCredential`` signs in to that account), ``AuthErrorCode/emailAlreadyInUse``,
    ///   ``AuthErrorCode/requiresRecentLogin``, ``AuthErrorCode/invalidCredential``, or a keychain or network
    ///   error. On failure the user is as it was.
    public func link(with credential: AuthCredential) async throws -> AuthDataResult {
        try await owningAuth().link(self, with: credential)
    }

    /// Unlinks a sign-in method from the account, as Firebase's `unlink(fromProvider:)`, and saves the
    /// user's sign-in methods (``providerData``).
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/noSuchProvider`` when the user has no method of that
    ///   provider (nothing is sent), ``AuthErrorCode/requiresRecentLogin``, or a keychain or network error.
    @discardableResult
    public func unlink(fromProvider provider: String) async throws -> User {
        try await owningAuth().unlink(self, fromProvider: provider)
        return self
    }

    /// Signs the user in again with a credential, as Firebase's `reauthenticate(with:)`, before a change
    /// that needs a recent sign-in (``AuthErrorCode/requiresRecentLogin``); the new tokens are saved.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/userMismatch`` when the credential is another user's (or
    ///   no account's), ``AuthErrorCode/wrongPassword``, ``AuthErrorCode/invalidCredential``, or a keychain
    ///   or network error. On failure the user is as it was.
    @discardableResult
    public func reauthenticate(with credential: AuthCredential) async throws -> AuthDataResult {
        try await owningAuth().reauthenticate(self, with: credential)
    }

    /// Reloads the user's profile from the backend and saves it.
    ///
    /// - Throws: ``AuthError``.
    public func reload() async throws {
        try await owningAuth().reload(self)
    }

    /// A request to change the display name or photo URL; see ``UserProfileChangeRequest/commitChanges()``.
    public func createProfileChangeRequest() -> UserProfileChangeRequest {
        UserProfileChangeRequest(user: self)
    }

    /// Changes the account's phone number to the one `credential` proves (its SMS code), as Firebase's
    /// `updatePhoneNumber(_:)`; the new tokens and number are saved.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidVerificationCode``, ``AuthErrorCode/sessionExpired``,
    ///   ``AuthErrorCode/credentialAlreadyInUse`` when another account has the number, ``AuthErrorCode/requiresRecentLogin``,
    ///   or a keychain or network error. On failure the user is as it was.
    public func updatePhoneNumber(_ credential: PhoneAuthCredential) async throws {
        try await owningAuth().updatePhoneNumber(of: self, credential)
    }

    /// Changes the account's email address and saves the user.
    ///
    /// - Throws: ``AuthError`` (for example ``AuthErrorCode/invalidEmail``, ``AuthErrorCode/emailAlreadyInUse``).
    public func updateEmail(to email: String) async throws {
        try await owningAuth().updateAccount(of: self, AccountChanges(email: email))
    }

    /// Changes the account's password; the backend issues new tokens, which are saved.
    ///
    /// - Throws: ``AuthError`` (for example ``AuthErrorCode/weakPassword``).
    public func updatePassword(to password: String) async throws {
        try await owningAuth().updateAccount(of: self, AccountChanges(password: password))
    }

    func update(_ changes: AccountChanges) async throws(AuthError) {
        try await owningAuth().updateAccount(of: self, changes)
    }

    /// Deletes the account on the backend and signs the user out.
    ///
    /// - Throws: ``AuthError``.
    public func delete() async throws {
        try await owningAuth().deleteAccount(of: self)
    }
}

/// A description and mirror without the tokens: the user's ID and whether it is anonymous.
extension User: CustomStringConvertible, CustomReflectable {
    public var description: String { "User(uid: \(String(reflecting: uid)), isAnonymous: \(isAnonymous))" }
    public var customMirror: Mirror {
        Mirror(self, children: ["uid": uid, "isAnonymous": isAnonymous], displayStyle: .class)
    }
}
