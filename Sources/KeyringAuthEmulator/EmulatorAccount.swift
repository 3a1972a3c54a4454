import Foundation

/// One account the emulator holds, in the field names of Identity Toolkit's account export
/// (`accounts:batchGet`, Firebase's `auth_export/accounts.json`).
public struct EmulatorAccount: Hashable, Sendable, Codable {
    public var localId: String
    /// Lower-cased, as Identity Toolkit stores it.
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoUrl: String?
    /// The phone number in E.164 form (`+15555550100`), set by a phone sign-in or the Admin API; the emulator sends
    /// no SMS.
    public var phoneNumber: String?
    /// The password, kept in memory only; an export leaves it out unless asked to include it.
    public var password: String?
    /// A password hash imported by `accounts:batchCreate` that is not the emulator's own form: kept as it
    /// came (hash and salt, base64), never checked against a password, so such an account cannot sign in
    /// with one (as in Firebase's emulator); a password set later replaces it.
    var importedPasswordHash: (hash: String, salt: String?)? {
        get { importedHash.map { ($0.hash, $0.salt) } }
        set { importedHash = newValue.map { ImportedHash(hash: $0.hash, salt: $0.salt) } }
    }
    private var importedHash: ImportedHash? = nil
    public var disabled: Bool
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var lastLoginAt: Int64?
    /// Milliseconds since 1970: when tokens were last issued for the account (a sign-in or a refresh).
    public var lastRefreshAt: Int64?
    /// Seconds since 1970; tokens issued before it are no longer valid.
    public var validSince: Int64
    public var tenantId: String?
    /// The identity providers' sign-in methods linked to the account (the password is not one of them:
    /// it is ``email`` and ``password``).
    public var identities: [ProviderIdentity]
    /// The account's custom claims, a JSON object as text (the Admin SDK's `setCustomUserClaims`), put in
    /// every ID token issued for it; ``AuthEmulator/setCustomClaims(_:of:)`` sets it.
    public var customAttributes: String?
    /// Whether the account has signed in with a custom token.
    public var customAuth: Bool
    /// Whether the account has signed in with an email link: its address is then a sign-in method without a
    /// password.
    public var emailLinkSignIn: Bool
    /// The address the account had before its first change without a code, which a `RECOVER_EMAIL` code gives back.
    var initialEmail: String? = nil
    /// The user's name at the identity provider that signed the account up (`screenName`, a handle).
    var screenName: String? = nil
    /// The second factors enrolled (`mfaInfo`), TOTP ones exported with their secrets, SMS ones with their numbers.
    var secondFactors: [SecondFactor] = []

    /// Raised to end every session: refresh tokens carry the generation they were issued in.
    var tokenGeneration: Int
    /// Makes refresh tokens unguessable from the uid and generation alone.
    var refreshSecret: String

    /// Whether the account signed up anonymously and never got a credential.
    public var isAnonymous: Bool {
        email == nil && password == nil && identities.isEmpty && !customAuth && phoneNumber == nil && importedHash == nil
    }

    /// Whether the address is a password sign-in method: with a password (set or imported) or by email links.
    var hasPasswordMethod: Bool { email != nil && (password != nil || importedHash != nil || emailLinkSignIn) }

    /// The sign-in methods, as `providerUserInfo` lists them: the password, then the identity providers.
    var providerUserInfoFields: [[String: Any]] {
        var methods: [[String: Any]] = []
        if let email, hasPasswordMethod {
            var info: [String: Any] = ["providerId": "password", "federatedId": email, "rawId": email, "email": email]
            if let displayName { info["displayName"] = displayName }
            if let photoUrl { info["photoUrl"] = photoUrl }
            methods.append(info)
        }
        if let phoneNumber { methods.append(["providerId": "phone", "rawId": phoneNumber, "phoneNumber": phoneNumber]) }
        for identity in identities {
            var info: [String: Any] = ["providerId": identity.providerId, "rawId": identity.rawId]
            info["federatedId"] = identity.federatedId
            info["email"] = identity.email
            info["displayName"] = identity.displayName
            info["photoUrl"] = identity.photoUrl
            info["screenName"] = identity.screenName
            methods.append(info)
        }
        return methods
    }

    /// The `firebase.identities` claim of its ID tokens: the user's ID at each provider, and its email address.
    var identityClaims: [String: [String]] {
        var claims: [String: [String]] = [:]
        if let email { claims["email"] = [email] }
        if let phoneNumber { claims["phone"] = [phoneNumber] }
        for identity in identities { claims[identity.providerId] = [identity.rawId] }
        return claims
    }

    /// What `accounts:lookup` answers for the account, to an app and to an administrator alike: never the password,
    /// nor a hash of it (the Admin SDKs then read `passwordHash` as none).
    var lookupFields: [String: Any] {
        var fields: [String: Any] = [
            "localId": localId, "emailVerified": emailVerified, "disabled": disabled,
            "createdAt": String(createdAt), "validSince": String(validSince), "providerUserInfo": providerUserInfoFields,
        ]
        fields["customAttributes"] = customAttributes
        if customAuth { fields["customAuth"] = true }
        if emailLinkSignIn { fields["emailLinkSignin"] = true }
        fields["email"] = email
        fields["displayName"] = displayName
        fields["photoUrl"] = photoUrl
        fields["phoneNumber"] = phoneNumber
        fields["screenName"] = screenName
        fields["initialEmail"] = initialEmail
        fields["lastLoginAt"] = lastLoginAt.map(String.init)
        fields["lastRefreshAt"] = lastRefreshAt.map(SecondFactor.timestamp)
        fields["tenantId"] = tenantId
        if password != nil || importedHash != nil { fields["passwordUpdatedAt"] = Double(validSince * 1000) }
        if !secondFactors.isEmpty { fields["mfaInfo"] = secondFactors.map(\.infoFields) }
        return fields
    }

    private struct ImportedHash: Hashable, Sendable {
        var hash: String
        var salt: String?
    }

    private enum CodingKeys: String, CodingKey {
        case localId, email, emailVerified, displayName, photoUrl, phoneNumber, password = "rawPassword", disabled, createdAt,
            lastLoginAt, lastRefreshAt, validSince, tenantId, providerUserInfo, customAttributes, customAuth, mfaInfo, screenName, initialEmail
    }

    init(localId: String, createdAt: Int64, tenantId: String?) {
        self.localId = localId
        self.emailVerified = false
        self.disabled = false
        self.createdAt = createdAt
        self.validSince = createdAt / 1000
        self.tenantId = tenantId
        self.identities = []
        self.customAuth = false
        self.emailLinkSignIn = false
        self.tokenGeneration = 0
        self.refreshSecret = EmulatorAccount.randomID(length: 24)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        localId = try container.decode(String.self, forKey: .localId)
        guard !localId.isEmpty, localId.count <= 128 else {
            throw DecodingError.dataCorruptedError(forKey: .localId, in: container, debugDescription: "must be 1 to 128 characters")
        }
        email = try container.decodeIfPresent(String.self, forKey: .email)?.lowercased()
        emailVerified = try container.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? false
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        photoUrl = try container.decodeIfPresent(String.self, forKey: .photoUrl)
        phoneNumber = try container.decodeIfPresent(String.self, forKey: .phoneNumber)
        screenName = try container.decodeIfPresent(String.self, forKey: .screenName)
        initialEmail = try container.decodeIfPresent(String.self, forKey: .initialEmail)?.lowercased()
        password = try container.decodeIfPresent(String.self, forKey: .password)
        disabled = try container.decodeIfPresent(Bool.self, forKey: .disabled) ?? false
        // Times a year 9999 clock could give, so later arithmetic on them cannot overflow.
        func time(_ key: CodingKeys, limit: Int64) throws -> Int64? {
            guard let value = try container.decodeIfPresent(LenientInt64.self, forKey: key)?.value else { return nil }
            guard (0...limit).contains(value) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "out of range")
            }
            return value
        }
        createdAt = try time(.createdAt, limit: 253_402_300_799_999) ?? 0
        lastLoginAt = try time(.lastLoginAt, limit: 253_402_300_799_999)
        if let text = try container.decodeIfPresent(String.self, forKey: .lastRefreshAt) {
            guard let milliseconds = SecondFactor.milliseconds(ofTimestamp: text), (0...253_402_300_799_999).contains(milliseconds) else {
                throw DecodingError.dataCorruptedError(forKey: .lastRefreshAt, in: container, debugDescription: "not an RFC 3339 time")
            }
            lastRefreshAt = milliseconds
        }
        validSince = try time(.validSince, limit: 253_402_300_799) ?? createdAt / 1000
        tenantId = try container.decodeIfPresent(String.self, forKey: .tenantId)
        // Firebase's export lists the password among the methods; here it is email and password.
        let methods = try container.decodeIfPresent([ProviderIdentity].self, forKey: .providerUserInfo) ?? []
        identities = methods.filter { !["password", "phone"].contains($0.providerId) }
        // A password method without a password: the address signs in with email links.
        emailLinkSignIn = email != nil && password == nil && methods.contains { $0.providerId == "password" }
        customAttributes = try container.decodeIfPresent(String.self, forKey: .customAttributes)
        if let customAttributes, let problem = CustomClaims.problem(withJSON: customAttributes) {
            throw DecodingError.dataCorruptedError(forKey: .customAttributes, in: container, debugDescription: problem)
        }
        customAuth = try container.decodeIfPresent(Bool.self, forKey: .customAuth) ?? false
        let exportedFactors = try container.decodeIfPresent([ExportedSecondFactor].self, forKey: .mfaInfo) ?? []
        do throws(EmulatorFailure) {
            secondFactors = try ExportedSecondFactor.factors(exportedFactors, now: Date())
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .mfaInfo, in: container, debugDescription: error.message)
        }
        tokenGeneration = 0
        refreshSecret = Self.randomID(length: 24)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(localId, forKey: .localId)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encode(emailVerified, forKey: .emailVerified)
        try container.encodeIfPresent(displayName, forKey: .displayName)
        try container.encodeIfPresent(photoUrl, forKey: .photoUrl)
        try container.encodeIfPresent(phoneNumber, forKey: .phoneNumber)
        try container.encodeIfPresent(screenName, forKey: .screenName)
        try container.encodeIfPresent(initialEmail, forKey: .initialEmail)
        if encoder.userInfo[.includePasswords] as? Bool == true {
            try container.encodeIfPresent(password, forKey: .password)
        }
        try container.encode(disabled, forKey: .disabled)
        try container.encode(String(createdAt), forKey: .createdAt)
        try container.encodeIfPresent(lastLoginAt.map(String.init), forKey: .lastLoginAt)
        try container.encodeIfPresent(lastRefreshAt.map(SecondFactor.timestamp), forKey: .lastRefreshAt)
        try container.encode(String(validSince), forKey: .validSince)
        try container.encodeIfPresent(tenantId, forKey: .tenantId)
        // An email-link account's address is a password method without a password, as Firebase's export lists it.
        let linkMethod = emailLinkSignIn && password == nil ? email.map { [ProviderIdentity(providerId: "password", rawId: $0, email: $0)] } : nil
        let methods = (linkMethod ?? []) + identities
        if !methods.isEmpty { try container.encode(methods, forKey: .providerUserInfo) }
        try container.encodeIfPresent(customAttributes, forKey: .customAttributes)
        if customAuth { try container.encode(true, forKey: .customAuth) }
        if !secondFactors.isEmpty { try container.encode(secondFactors.map(ExportedSecondFactor.init), forKey: .mfaInfo) }
    }

    /// A random identifier of letters and digits, like Firebase's 28-character uids.
    static func randomID(length: Int = 28) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }
}

extension CodingUserInfoKey {
    /// Set to `true` to write passwords into an export.
    static let includePasswords = CodingUserInfoKey(rawValue: "KeyringAuthEmulator.includePasswords")!
}

/// A whole number written as a JSON string or number.
struct LenientInt64: Decodable {
    var value: Int64

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            value = number
        } else if let number = Int64(try container.decode(String.self)) {
            value = number
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a whole number")
        }
    }
}
