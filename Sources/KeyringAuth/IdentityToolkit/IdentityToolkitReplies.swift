import Foundation

// The bodies Identity Toolkit and the secure-token service answer with, as the public REST
// reference describes them. Only the fields we use are declared; unknown fields are ignored.
// Numbers the service sends as strings (`expiresIn`, `createdAt`, …) are read from either form.

/// `accounts:signUp` and `accounts:signInWithPassword`.
struct SignInReply: Decodable {
    var localId: String
    var idToken: String
    var refreshToken: String
    var expiresIn: LenientInt
}

/// `accounts:signInWithCustomToken`: no `localId` (the ID token names the user).
struct CustomTokenReply: Decodable {
    var idToken: String
    var refreshToken: String
    var expiresIn: LenientInt
    var isNewUser: Bool?
}

/// `accounts:signInWithIdp`. With `returnIdpCredential`, a refusal about the credential comes with HTTP 200,
/// `errorMessage` and the provider's tokens; an existing account with the same email, with `needConfirmation`.
struct IdpSignInReply: Decodable {
    var localId: String?
    var idToken: String?
    var refreshToken: String?
    var expiresIn: LenientInt?
    var providerId: String?
    var email: String?
    var isNewUser: Bool?
    var rawUserInfo: String?
    var screenName: String?
    var oauthIdToken: String?
    var oauthAccessToken: String?
    var oauthTokenSecret: String?
    var needConfirmation: Bool?
    var verifiedProvider: [String]?
    var errorMessage: String?
}

/// `accounts:createAuthUri` with a provider ID: where to send the browser, and the session it is bound to.
struct CreateAuthUriReply: Decodable {
    var authUri: String?
    var sessionId: String?
    var providerId: String?
}

/// A first factor passed for an account with second factors (any sign-in): no tokens, a pending credential.
struct SecondFactorPendingReply: Decodable {
    var idToken: String?
    var mfaPendingCredential: String?
    var mfaInfo: [Enrollment]?

    /// An `mfaInfo` entry: a TOTP factor has `totpInfo`, a phone factor `phoneInfo`.
    struct Enrollment: Decodable {
        var mfaEnrollmentId: String
        var displayName: String?
        var enrolledAt: String?
        var phoneInfo: String?

        var factor: SecondFactorChallenge.Factor {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let date = enrolledAt.flatMap { formatter.date(from: $0) ?? ISO8601DateFormatter().date(from: $0) }
            return SecondFactorChallenge.Factor(
                enrollmentID: mfaEnrollmentId, displayName: displayName, enrolledAt: date ?? Date(timeIntervalSince1970: 0),
                factorID: phoneInfo == nil ? "totp" : "phone", phoneNumber: phoneInfo.map { String($0.prefix(32)) })
        }
    }

    /// The most factors read (Identity Platform allows five per account).
    static let maximumFactors = 16

    var challenge: SecondFactorChallenge? {
        guard idToken == nil, let mfaPendingCredential, !mfaPendingCredential.isEmpty, mfaPendingCredential.utf8.count <= 4096,
            let mfaInfo, !mfaInfo.isEmpty, mfaInfo.count <= Self.maximumFactors
        else { return nil }
        return SecondFactorChallenge(pendingCredential: mfaPendingCredential, factors: mfaInfo.map(\.factor))
    }
}

/// `v2/accounts/mfaEnrollment:start` with `totpEnrollmentInfo`.
struct TOTPEnrollmentStartReply: Decodable {
    var totpSessionInfo: Session

    struct Session: Decodable {
        var sharedSecretKey: String
        var sessionInfo: String
        var verificationCodeLength: LenientInt?
        var hashingAlgorithm: String?
        var periodSec: LenientInt?
    }
}

/// `v2/accounts/mfaSignIn:finalize`: tokens, no `localId` (the ID token names the user).
struct SecondFactorSignInReply: Decodable {
    var idToken: String
    var refreshToken: String
}

/// `accounts:lookup`.
struct LookupReply: Decodable {
    var users: [User]?

    struct User: Decodable {
        var localId: String
        var email: String?
        var emailVerified: Bool?
        var displayName: String?
        var photoUrl: String?
        var phoneNumber: String?
        var createdAt: LenientInt?
        var lastLoginAt: LenientInt?
        var tenantId: String?
        var providerUserInfo: [Provider]?
        var customAuth: Bool?
        var mfaInfo: [SecondFactorPendingReply.Enrollment]?
    }

    struct Provider: Decodable {
        var providerId: String
        var rawId: String?
        var federatedId: String?
        var displayName: String?
        var photoUrl: String?
        var email: String?
        var phoneNumber: String?
    }
}

/// `accounts:update`: the tokens are present when the change issued new ones (email, password).
struct UpdateReply: Decodable {
    var localId: String
    var idToken: String?
    var refreshToken: String?
    var expiresIn: LenientInt?
}

/// `accounts:delete` answers `{"kind": …}`; nothing in it is needed.
struct DeleteReply: Decodable {}

/// The secure-token endpoint, in snake case.
struct SecureTokenReply: Decodable {
    var idToken: String?
    var accessToken: String?
    var refreshToken: String
    var expiresIn: LenientInt
    var userId: String?

    enum CodingKeys: String, CodingKey {
        case idToken = "id_token", accessToken = "access_token", refreshToken = "refresh_token"
        case expiresIn = "expires_in", userId = "user_id"
    }
}

/// Every failure: `{"error": {"code": 400, "message": "CODE : detail", "errors": […]}}`; the secure-token
/// service adds `status`, and Google's front end `details` (for example `API_KEY_INVALID`).
struct ServerErrorReply: Decodable {
    var error: Body

    struct Body: Decodable {
        var code: Int?
        var message: String
        var status: String?
        var errors: [Reason]?
        var details: [Reason]?
    }

    struct Reason: Decodable {
        var reason: String?
    }

    /// The reasons given besides the message.
    var reasons: [String] { ((error.errors ?? []) + (error.details ?? [])).compactMap(\.reason) }
}

/// An integer the service sends as a JSON string (`"3600"`) or, from some emulators, as a number.
struct LenientInt: Decodable, Hashable {
    var value: Int64

    init(_ value: Int64) { self.value = value }

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

extension LookupReply.User {
    /// The account in the terms ``Auth`` uses.
    var account: BackendAccount {
        BackendAccount(
            uid: localId, email: email, emailVerified: emailVerified ?? false, displayName: displayName,
            photoURL: photoUrl.flatMap(URL.init(string:)), phoneNumber: phoneNumber,
            creationDate: createdAt.map(\.millisecondsDate), lastSignInDate: lastLoginAt.map(\.millisecondsDate),
            providers: (providerUserInfo ?? []).map(\.info), tenantID: tenantId,
            secondFactors: (mfaInfo ?? []).prefix(SecondFactorPendingReply.maximumFactors).map { $0.factor.info })
    }
}

extension LookupReply.Provider {
    var info: ProviderUserInfo {
        ProviderUserInfo(
            providerID: providerId, uid: rawId ?? federatedId ?? "", displayName: displayName,
            photoURL: photoUrl.flatMap(URL.init(string:)), email: email, phoneNumber: phoneNumber)
    }
}

extension LenientInt {
    var millisecondsDate: Date { Date(timeIntervalSince1970: Double(value) / 1000) }
}

/// `accounts:createAuthUri` with an `identifier`: how the address's account signs in (absent: no way, or not told).
struct CreateAuthURIReply: Decodable {
    var signinMethods: [String]?
}

/// `accounts:sendOobCode`: `{"kind": …, "email": …}`; nothing in it is needed.
struct OutOfBandCodeReply: Decodable {}

/// `accounts:resetPassword`: the code's address and request type; `newEmail` for an address change.
struct ResetPasswordReply: Decodable {
    var email: String?
    var newEmail: String?
    var requestType: String?
}

/// `accounts:update` with an `oobCode`: the account it changed.
struct AppliedCodeReply: Decodable {
    var localId: String?
    var email: String?
    var emailVerified: Bool?
}

/// `accounts:signInWithEmailLink`.
struct EmailLinkSignInReply: Decodable {
    var localId: String
    var idToken: String
    var refreshToken: String
    var expiresIn: LenientInt
    var email: String?
    var isNewUser: Bool?
}
