import Foundation

/// A token the stand-in reCAPTCHA minted, usable once until it expires.
struct StandInRecaptchaToken: Sendable {
    var token: String
    /// Minted by `enterprise.js` (a `captchaResponse`), else by `api.js` (a v2 `recaptchaToken`).
    var enterprise: Bool
    /// The Enterprise action it was minted for (`sendVerificationCode`, `mfaSmsEnrollment`, `mfaSmsSignIn`).
    var action: String?
    /// Seconds since 1970.
    var expiresAt: Int64
}

// The stand-in reCAPTCHA (``AuthEmulator/StandInRecaptcha``, a test option): `v2/recaptchaConfig`, the scripts and the
// token endpoint under `/emulator/recaptcha/`, and the check of the tokens a phone request carries.
extension EmulatorService {
    static let standInRecaptchaPath = "/emulator/recaptcha/"
    static let maximumRecaptchaTokens = 1000
    /// How long a token can be used, in seconds: two minutes, as Google's.
    static let recaptchaTokenLifetime: Int64 = 120

    /// The Enterprise action a phone request's token must have been minted for, as the JavaScript SDK names them.
    enum RecaptchaAction: String {
        case sendVerificationCode
        case mfaSmsEnrollment
        case mfaSmsSignIn
    }

    /// `GET v2/recaptchaConfig`: the project's reCAPTCHA Enterprise configuration, with the stand-in's enforcement for
    /// the phone provider; without the option, 501, as firebase-tools answers.
    func recaptchaConfig() throws(EmulatorFailure) -> [String: Any] {
        guard let recaptcha else {
            throw EmulatorFailure.notImplemented("identitytoolkit.getRecaptchaConfig is not implemented in the Auth Emulator.")
        }
        return [
            "recaptchaKey": "projects/\(projectID)/keys/\(AuthEmulator.StandInRecaptcha.enterpriseKey)",
            "recaptchaEnforcementState": [
                ["provider": "PHONE_PROVIDER", "enforcementState": recaptcha.enforcement.rawValue],
                ["provider": "EMAIL_PASSWORD_PROVIDER", "enforcementState": "OFF"],
            ],
            "useSmsBotScore": false, "useSmsTollFraudProtection": false,
        ]
    }

    /// `/emulator/recaptcha/{api.js,enterprise.js,token}` while the option is on (else 404). The token endpoint may be
    /// called from any origin (a client's own page), so its answers, refusals included, allow every origin.
    func standInRecaptcha(_ request: EmulatorRequest) -> EmulatorResponse {
        let name = request.path.dropFirst(Self.standInRecaptchaPath.count)
        guard recaptcha != nil, ["api.js", "enterprise.js", "token"].contains(name) else { return EmulatorFailure.notFound(request).response() }
        switch (request.method, name) {
        case ("GET", "api.js"): return .javascript(StandInRecaptchaScripts.v2)
        case ("GET", "enterprise.js"): return .javascript(StandInRecaptchaScripts.enterprise)
        case ("OPTIONS", "token"):
            return EmulatorResponse(status: 204, body: Data(), contentType: "text/plain; charset=UTF-8", headers: Self.anyOrigin + [
                ("Access-Control-Allow-Methods", "POST"), ("Access-Control-Allow-Headers", "Content-Type"),
                ("Access-Control-Max-Age", "600"),
            ])
        case ("POST", "token"):
            var response: EmulatorResponse
            do throws(EmulatorFailure) {
                response = .json(try mintRecaptchaToken(try request.fields()))
            } catch {
                response = error.response()
            }
            response.headers += Self.anyOrigin
            return response
        default:
            return EmulatorFailure.methodNotAllowed(request).response()
        }
    }

    private static let anyOrigin: [(name: String, value: String)] = [("Access-Control-Allow-Origin", "*"), ("Cache-Control", "no-store")]

    /// `POST /emulator/recaptcha/token` `{"version": "v2"|"enterprise", "siteKey", "action"?}` → `{"token"}`.
    private func mintRecaptchaToken(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let version = try fields.string("version")
        let siteKey = try fields.string("siteKey")
        let action = try fields.string("action")
        guard version == "v2" || version == "enterprise" else { throw EmulatorFailure("INVALID_ARGUMENT : version is v2 or enterprise") }
        let enterprise = version == "enterprise"
        guard siteKey == (enterprise ? AuthEmulator.StandInRecaptcha.enterpriseKey : AuthEmulator.StandInRecaptcha.siteKey) else {
            throw EmulatorFailure("INVALID_ARGUMENT : unknown site key for reCAPTCHA \(version ?? "")")
        }
        if let action, action.utf8.count > 100 { throw EmulatorFailure("INVALID_ARGUMENT : the action is at most 100 characters") }
        let token = StandInRecaptchaToken(
            token: EmulatorAccount.randomID(length: 120), enterprise: enterprise, action: action,
            expiresAt: clock().seconds + Self.recaptchaTokenLifetime)
        state.withLock { state in
            if state.recaptchaTokens.count >= Self.maximumRecaptchaTokens { state.recaptchaTokens.removeFirst() }
            state.recaptchaTokens.append(token)
        }
        return ["token": token.token]
    }

    /// Uses a token the stand-in minted (once): `nil` when it is unknown, used, expired, or of the other version.
    private static func useRecaptchaToken(_ text: String?, enterprise: Bool, now: Int64, in state: inout State) -> StandInRecaptchaToken? {
        guard let text, !text.isEmpty, let index = state.recaptchaTokens.firstIndex(where: { $0.token == text }) else { return nil }
        let token = state.recaptchaTokens.remove(at: index)
        return token.enterprise == enterprise && token.expiresAt > now ? token : nil
    }

    /// The app verification of a phone request (`info`: `accounts:sendVerificationCode`'s body, `phoneEnrollmentInfo`,
    /// `phoneSignInInfo`), checked only while the stand-in reCAPTCHA is on, by its enforcement: ENFORCE needs
    /// `clientType` `CLIENT_TYPE_WEB`, `recaptchaVersion` `RECAPTCHA_ENTERPRISE` and an Enterprise `captchaResponse` minted
    /// for `action`; AUDIT takes such a token, or with `captchaResponse: "NO_RECAPTCHA"` a v2 `recaptchaToken`; OFF
    /// needs a v2 `recaptchaToken`. A token checked is used, whatever the answer.
    func checkAppVerification(_ info: RequestFields, action: RecaptchaAction, in state: inout State) throws(EmulatorFailure) {
        guard let recaptcha else { return }
        let captchaResponse = try info.string("captchaResponse")
        let v2Token = try info.string("recaptchaToken")
        let now = clock().seconds
        func use(_ token: String?, enterprise: Bool) -> StandInRecaptchaToken? {
            Self.useRecaptchaToken(token, enterprise: enterprise, now: now, in: &state)
        }
        func requireV2Token() throws(EmulatorFailure) {
            guard let v2Token, !v2Token.isEmpty else { throw EmulatorFailure("MISSING_APP_CREDENTIAL") }
            guard use(v2Token, enterprise: false) != nil else { throw EmulatorFailure("INVALID_APP_CREDENTIAL") }
        }
        switch recaptcha.enforcement {
        case .enforce:
            guard try info.string("clientType") == "CLIENT_TYPE_WEB" else { throw EmulatorFailure("MISSING_CLIENT_TYPE") }
            guard let version = try info.string("recaptchaVersion"), !version.isEmpty else {
                throw EmulatorFailure("MISSING_RECAPTCHA_VERSION")
            }
            guard version == "RECAPTCHA_ENTERPRISE" else { throw EmulatorFailure("INVALID_RECAPTCHA_VERSION") }
            guard let captchaResponse, !captchaResponse.isEmpty else { throw EmulatorFailure("MISSING_RECAPTCHA_TOKEN") }
            guard let token = use(captchaResponse, enterprise: true) else { throw EmulatorFailure("INVALID_RECAPTCHA_TOKEN") }
            guard token.action == action.rawValue else { throw EmulatorFailure("INVALID_RECAPTCHA_ACTION") }
        case .audit:
            if captchaResponse == "NO_RECAPTCHA" { return try requireV2Token() }
            guard use(captchaResponse, enterprise: true)?.action == action.rawValue else {
                throw EmulatorFailure("INVALID_APP_CREDENTIAL")
            }
        case .off:
            try requireV2Token()
        }
    }
}
