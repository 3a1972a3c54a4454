import Foundation

/// Tokens the identity backend issued for a user.
public struct AuthTokens: Hashable, Sendable, Codable {
    /// The ID token (a JWT) apps send to their servers.
    public var idToken: String
    /// The long-lived token that gets new ID tokens.
    public var refreshToken: String
    /// When ``idToken`` expires.
    public var expirationDate: Date

    public init(idToken: String, refreshToken: String, expirationDate: Date) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expirationDate = expirationDate
    }
}

/// What a sign-up or sign-in returns.
public struct BackendSignIn: Hashable, Sendable {
    /// The user's ID (`localId`).
    public var uid: String
    public var tokens: AuthTokens

    public init(uid: String, tokens: AuthTokens) {
        self.uid = uid
        self.tokens = tokens
    }
}

/// One sign-in method linked to an account.
public struct ProviderUserInfo: Hashable, Sendable, Codable {
    /// For example `password`; anonymous users have none.
    public var providerID: String
    public var uid: String
    public var displayName: String?
    public var photoURL: URL?
    public var email: String?
    public var phoneNumber: String?

    public init(
        providerID: String, uid: String, displayName: String? = nil, photoURL: URL? = nil, email: String? = nil,
        phoneNumber: String? = nil
    ) {
        self.providerID = providerID
        self.uid = uid
        self.displayName = displayName
        self.photoURL = photoURL
        self.email = email
        self.phoneNumber = phoneNumber
    }
}

/// An account as `accounts:lookup` describes it.
public struct BackendAccount: Hashable, Sendable {
    public var uid: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoURL: URL?
    public var phoneNumber: String?
    public var creationDate: Date?
    public var lastSignInDate: Date?
    public var providers: [ProviderUserInfo]
    public var tenantID: String?

    public init(
        uid: String, email: String? = nil, emailVerified: Bool = false, displayName: String? = nil,
        photoURL: URL? = nil, phoneNumber: String? = nil, creationDate: Date? = nil, lastSignInDate: Date? = nil,
        providers: [ProviderUserInfo] = [], tenantID: String? = nil
    ) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.creationDate = creationDate
        self.lastSignInDate = lastSignInDate
        self.providers = providers
        self.tenantID = tenantID
    }
}

/// Changes to an account (`accounts:update`); `nil` leaves a field as it is.
public struct AccountChanges: Hashable, Sendable {
    /// A profile field that can be removed from an account.
    public enum Attribute: String, Hashable, Sendable, CaseIterable {
        case displayName, photoURL

        /// The name `accounts:update` uses in `deleteAttribute`.
        var serverName: String {
            switch self {
            case .displayName: "DISPLAY_NAME"
            case .photoURL: "PHOTO_URL"
            }
        }
    }

    public var displayName: String?
    public var photoURL: URL?
    public var email: String?
    public var password: String?
    /// Fields to remove from the account.
    public var deletedAttributes: Set<Attribute>

    public init(
        displayName: String? = nil, photoURL: URL? = nil, email: String? = nil, password: String? = nil,
        deletedAttributes: Set<Attribute> = []
    ) {
        self.displayName = displayName
        self.photoURL = photoURL
        self.email = email
        self.password = password
        self.deletedAttributes = deletedAttributes
    }
}

/// The identity service ``Auth`` signs users in with: Firebase's Identity Toolkit REST API,
/// its local emulator, or a test double. Every failure is an ``AuthError`` with Firebase's code.
public protocol AuthBackend: Sendable {
    /// The API key requests are made with; users signed in through another key are foreign.
    var apiKey: String { get }

    /// Creates an anonymous account (`accounts:signUp` with no credential).
    func signUpAnonymously(tenantID: String?) async throws(AuthError) -> BackendSignIn
    /// Creates an email/password account (`accounts:signUp`).
    func signUp(email: String, password: String, tenantID: String?) async throws(AuthError) -> BackendSignIn
    /// Signs in with email and password (`accounts:signInWithPassword`).
    func signIn(email: String, password: String, tenantID: String?) async throws(AuthError) -> BackendSignIn
    /// Describes the account an ID token belongs to (`accounts:lookup`).
    func lookUp(idToken: String) async throws(AuthError) -> BackendAccount
    /// Changes an account (`accounts:update`); returns new tokens when the backend issued them.
    func update(idToken: String, changes: AccountChanges) async throws(AuthError) -> AuthTokens?
    /// Deletes an account (`accounts:delete`).
    func delete(idToken: String) async throws(AuthError)
    /// Exchanges a refresh token for new tokens (the secure-token endpoint).
    func refresh(refreshToken: String) async throws(AuthError) -> AuthTokens
}
