/// Where an SMS code goes and what it is for: the three Identity Toolkit calls that send one.
package enum PhoneCodeRequest: Hashable, Sendable {
    /// A sign-in, link, reauthentication or number change (`accounts:sendVerificationCode`).
    case firstFactor(phoneNumber: String)
    /// Enrolling the number as a second factor of the user of `idToken` (`v2/accounts/mfaEnrollment:start`).
    case enrollment(idToken: String, phoneNumber: String)
    /// A sign-in's second factor `enrollmentID` (`v2/accounts/mfaSignIn:start`).
    case secondFactorSignIn(pendingCredential: String, enrollmentID: String)

    /// The reCAPTCHA Enterprise action the request is verified for, as Firebase's JavaScript SDK names it.
    package var recaptchaAction: String {
        switch self {
        case .firstFactor: "sendVerificationCode"
        case .enrollment: "mfaSmsEnrollment"
        case .secondFactorSignIn: "mfaSmsSignIn"
        }
    }
}

/// How the app was verified for a request that sends an SMS code, in the fields Firebase's JavaScript SDK sends:
/// none (app verification disabled for testing), a reCAPTCHA v2 token, a reCAPTCHA Enterprise token, or both.
package struct AppVerificationFields: Hashable, Sendable {
    /// A reCAPTCHA v2 token (`recaptchaToken`).
    package var recaptchaToken: String?
    /// A reCAPTCHA Enterprise token, or `NO_RECAPTCHA` (`captchaResponse`).
    package var captchaResponse: String?
    /// `CLIENT_TYPE_WEB` (`clientType`).
    package var clientType: String?
    /// `RECAPTCHA_ENTERPRISE` (`recaptchaVersion`).
    package var recaptchaVersion: String?

    package init(recaptchaToken: String? = nil, captchaResponse: String? = nil, clientType: String? = nil, recaptchaVersion: String? = nil) {
        self.recaptchaToken = recaptchaToken
        self.captchaResponse = captchaResponse
        self.clientType = clientType
        self.recaptchaVersion = recaptchaVersion
    }

    /// No verification: what Firebase's SDKs send when app verification is disabled for testing.
    package static let none = AppVerificationFields()

    /// The Enterprise token that stands for none: the JavaScript SDK's `FAKE_TOKEN`.
    package static let noRecaptcha = "NO_RECAPTCHA"

    /// The fields as the request body carries them.
    var json: [String: String] {
        ["recaptchaToken": recaptchaToken, "captchaResponse": captchaResponse, "clientType": clientType, "recaptchaVersion": recaptchaVersion]
            .compactMapValues { $0 }
    }
}

/// The project's reCAPTCHA Enterprise set-up for phone numbers (`GET v2/recaptchaConfig`).
package struct RecaptchaConfig: Hashable, Sendable {
    /// How strictly the project checks reCAPTCHA Enterprise for a provider.
    package enum Enforcement: String, Hashable, Sendable {
        case off = "OFF", audit = "AUDIT", enforce = "ENFORCE"
    }

    /// The Enterprise site key: the last part of `recaptchaKey` (`projects/N/keys/KEY`); `nil` without one.
    package var siteKey: String?
    /// The phone provider's enforcement.
    package var phoneEnforcement: Enforcement

    package init(siteKey: String?, phoneEnforcement: Enforcement) {
        self.siteKey = siteKey
        self.phoneEnforcement = phoneEnforcement
    }
}

/// Why an SMS code is checked (`accounts:signInWithPhoneNumber`'s `operation`), as Firebase's SDKs send it.
package enum PhoneOperation: String, Hashable, Sendable {
    case signUpOrIn = "SIGN_UP_OR_IN", reauthenticate = "REAUTH", link = "LINK", update = "UPDATE"
}
