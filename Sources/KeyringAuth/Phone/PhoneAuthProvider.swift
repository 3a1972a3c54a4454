import Foundation
import Synchronization

/// Phone numbers, as Firebase's `PhoneAuthProvider`: has an SMS code sent (``verifyPhoneNumber(_:uiDelegate:multiFactorSession:)``)
/// and makes the credential of the code the person received (``credential(withVerificationID:verificationCode:)``).
///
/// Where Firebase's Apple SDK verifies the app with a silent push or a reCAPTCHA web view, this one opens a page in the
/// person's browser at `http://localhost:PORT/` with the project's reCAPTCHA (v2's checkbox, or reCAPTCHA Enterprise
/// when the project enforces it), as Firebase's JavaScript SDK verifies a web page. With
/// ``AuthSettings/isAppVerificationDisabledForTesting`` (set by ``Auth/useEmulator(withHost:port:)``) no page opens.
public final class PhoneAuthProvider: @unchecked Sendable {
    /// The provider ID of phone numbers, `phone`.
    public static let id = "phone"

    /// The ``Auth`` whose project sends the code.
    let auth: Auth

    private struct Settings {
        var browser = DesktopBrowser.system
        var verificationPort: UInt16 = 0
        var timeout = Duration.seconds(300)
    }

    /// `@unchecked Sendable`: the settings are kept under this lock.
    private let settings = Mutex(Settings())

    /// How the verification page is shown: ``DesktopBrowser/system`` (the person's browser) by default; with
    /// ``DesktopBrowser/none`` the app shows the address ``verifyPhoneNumber(_:uiDelegate:multiFactorSession:announcing:)``
    /// announces. KeyringAuth's own.
    public var browser: DesktopBrowser {
        get { settings.withLock { $0.browser } }
        set { settings.withLock { $0.browser = newValue } }
    }

    /// The loopback port of the verification page; 0 (the default) lets the system pick a free one. KeyringAuth's own.
    public var verificationPort: UInt16 {
        get { settings.withLock { $0.verificationPort } }
        set { settings.withLock { $0.verificationPort = newValue } }
    }

    /// How long to wait for the person to finish the verification page (five minutes by default). KeyringAuth's own.
    public var timeout: Duration {
        get { settings.withLock { $0.timeout } }
        set { settings.withLock { $0.timeout = newValue } }
    }

    init(auth: Auth) { self.auth = auth }

    /// The provider of the default ``Auth``.
    public class func provider() -> PhoneAuthProvider { PhoneAuthProvider(auth: Auth.auth()) }

    /// The provider of `auth`.
    public class func provider(auth: Auth) -> PhoneAuthProvider { PhoneAuthProvider(auth: auth) }

    /// Has an SMS code sent to `phoneNumber` and returns the verification ID to make the credential with, as Firebase's
    /// `verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`. The app is verified first in the person's browser (see
    /// the type's description).
    ///
    /// - Parameters:
    ///   - phoneNumber: The number in E.164 form (`+15555550100`); checked before anything is sent.
    ///   - uiDelegate: Unused on Linux: pass `nil`.
    ///   - multiFactorSession: `nil` for a sign-in, link or number change; a signed-in user's
    ///     ``MultiFactor/session()`` to enroll the number as a second factor.
    /// - Throws: ``AuthError``: ``AuthErrorCode/missingPhoneNumber``, ``AuthErrorCode/invalidPhoneNumber``,
    ///   ``AuthErrorCode/quotaExceeded``, ``AuthErrorCode/tooManyRequests``, ``AuthErrorCode/captchaCheckFailed``,
    ///   ``AuthErrorCode/invalidAppCredential``, ``AuthErrorCode/missingAppCredential``, the `recaptcha…` codes,
    ///   ``AuthErrorCode/webContextCancelled`` when the person cancelled or closed the page or the time passed,
    ///   ``AuthErrorCode/secondFactorAlreadyEnrolled``, ``AuthErrorCode/unsupportedFirstFactor``, or a network error.
    public func verifyPhoneNumber(
        _ phoneNumber: String, uiDelegate: AuthUIDelegate? = nil, multiFactorSession: MultiFactorSession? = nil
    ) async throws -> String {
        try await verifyPhoneNumber(phoneNumber, uiDelegate: uiDelegate, multiFactorSession: multiFactorSession, announcing: { _ in })
    }

    /// ``verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`` that announces the verification page's address before the
    /// browser opens it, so that the app can show it (with ``DesktopBrowser/none``, or when no browser opens). No page,
    /// so no announcement, when app verification is disabled for testing. KeyringAuth's own.
    public func verifyPhoneNumber(
        _ phoneNumber: String, uiDelegate: AuthUIDelegate?, multiFactorSession: MultiFactorSession?,
        announcing: @Sendable (URL) -> Void
    ) async throws -> String {
        try PhoneNumber.check(phoneNumber)
        let request: PhoneCodeRequest
        switch multiFactorSession?.kind {
        case nil: request = .firstFactor(phoneNumber: phoneNumber)
        case .enrollment(_, let idToken)?: request = .enrollment(idToken: idToken, phoneNumber: phoneNumber)
        case .signIn?:
            throw AuthError(
                .missingMultiFactorInfo,
                "A sign-in's second factor is verified with verifyPhoneNumber(with:uiDelegate:multiFactorSession:) and one of the "
                    + "resolver's hints, not with a number.")
        }
        return try await send(request, shownNumber: phoneNumber, announcing: announcing)
    }

    /// Has an SMS code sent to an enrolled second factor, to finish a sign-in (`multiFactorSession`: the
    /// ``MultiFactorResolver/session``) with ``PhoneMultiFactorGenerator/assertion(with:)``; as Firebase's
    /// `verifyPhoneNumber(with:uiDelegate:multiFactorSession:)`.
    ///
    /// - Throws: What ``verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`` throws, and
    ///   ``AuthErrorCode/missingMultiFactorSession`` without a sign-in's session.
    public func verifyPhoneNumber(
        with multiFactorInfo: PhoneMultiFactorInfo, uiDelegate: AuthUIDelegate? = nil, multiFactorSession: MultiFactorSession?
    ) async throws -> String {
        try await verifyPhoneNumber(with: multiFactorInfo, uiDelegate: uiDelegate, multiFactorSession: multiFactorSession, announcing: { _ in })
    }

    /// ``verifyPhoneNumber(with:uiDelegate:multiFactorSession:)`` that announces the verification page's address first.
    /// KeyringAuth's own.
    public func verifyPhoneNumber(
        with multiFactorInfo: PhoneMultiFactorInfo, uiDelegate: AuthUIDelegate?, multiFactorSession: MultiFactorSession?,
        announcing: @Sendable (URL) -> Void
    ) async throws -> String {
        guard let pendingCredential = multiFactorSession?.pendingCredential else {
            throw AuthError(
                .missingMultiFactorSession,
                "An enrolled second factor is verified with the session of the sign-in's MultiFactorResolver (resolver.session).")
        }
        return try await send(
            .secondFactorSignIn(pendingCredential: pendingCredential, enrollmentID: multiFactorInfo.uid), shownNumber: multiFactorInfo.phoneNumber,
            announcing: announcing)
    }

    /// ``verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`` with a completion handler, called on the callback queue.
    public func verifyPhoneNumber(
        _ phoneNumber: String, uiDelegate: AuthUIDelegate? = nil, completion: (@Sendable (String?, Error?) -> Void)?
    ) {
        verifyPhoneNumber(phoneNumber, uiDelegate: uiDelegate, multiFactorSession: nil, completion: completion)
    }

    /// ``verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`` with a completion handler, called on the callback queue.
    public func verifyPhoneNumber(
        _ phoneNumber: String, uiDelegate: AuthUIDelegate? = nil, multiFactorSession: MultiFactorSession? = nil,
        completion: (@Sendable (String?, Error?) -> Void)?
    ) {
        auth.complete({ id, error in completion?(id, error) }) { () async throws in
            try await self.verifyPhoneNumber(phoneNumber, uiDelegate: uiDelegate, multiFactorSession: multiFactorSession)
        }
    }

    /// ``verifyPhoneNumber(with:uiDelegate:multiFactorSession:)`` with a completion handler, called on the callback queue.
    public func verifyPhoneNumber(
        with multiFactorInfo: PhoneMultiFactorInfo, uiDelegate: AuthUIDelegate? = nil, multiFactorSession: MultiFactorSession?,
        completion: (@Sendable (String?, Error?) -> Void)?
    ) {
        auth.complete({ id, error in completion?(id, error) }) { () async throws in
            try await self.verifyPhoneNumber(with: multiFactorInfo, uiDelegate: uiDelegate, multiFactorSession: multiFactorSession)
        }
    }

    /// The credential of the code the SMS carried, for ``Auth/signIn(with:)``, ``User/link(with:)``,
    /// ``User/reauthenticate(with:)``, ``User/updatePhoneNumber(_:)`` or ``PhoneMultiFactorGenerator/assertion(with:)``.
    public func credential(withVerificationID verificationID: String, verificationCode: String) -> PhoneAuthCredential {
        PhoneAuthCredential(verificationID: verificationID, verificationCode: verificationCode)
    }

    // MARK: Sending, with the app verified as the JavaScript SDK verifies a web page

    private func send(_ request: PhoneCodeRequest, shownNumber: String, announcing: @Sendable (URL) -> Void) async throws(AuthError) -> String {
        let backend = auth.configuration.backend
        let context = auth.requestContext
        if auth.settings?.isAppVerificationDisabledForTesting == true {
            return try await backend.sendVerificationCode(request, verification: .none, context: context)
        }
        // As the JavaScript SDK: without the project's configuration, reCAPTCHA v2.
        let config = try? await backend.recaptchaConfig(context: context)
        let enforcement = config?.siteKey == nil ? .off : config?.phoneEnforcement ?? .off
        var page = RecaptchaPage(
            scriptBase: backend.recaptchaScriptBase, enterprise: nil, v2SiteKey: nil, alwaysV2: enforcement == .audit, phoneNumber: shownNumber,
            languageCode: context.languageCode)
        if enforcement == .off {
            page.v2SiteKey = try await backend.recaptchaSiteKey(context: context)
        } else {
            page.enterprise = (config?.siteKey ?? "", request.recaptchaAction)
            // The checkbox is AUDIT's retry, and ENFORCE's way on when Enterprise cannot check the browser.
            page.v2SiteKey = try? await backend.recaptchaSiteKey(context: context)
        }
        var flow = AppVerificationFlow(page: page)
        (flow.browser, flow.port, flow.timeout) = settings.withLock { ($0.browser, $0.verificationPort, $0.timeout) }
        flow.logger = auth.configuration.logger
        let tokens = try await flow.tokens(announcing: announcing)
        let web = AppVerificationFields(clientType: "CLIENT_TYPE_WEB", recaptchaVersion: "RECAPTCHA_ENTERPRISE")
        var withV2 = web
        (withV2.captchaResponse, withV2.recaptchaToken) = (AppVerificationFields.noRecaptcha, tokens.v2)
        guard enforcement != .off, let enterprise = tokens.enterprise, enterprise != AppVerificationFields.noRecaptcha else {
            return try await backend.sendVerificationCode(request, verification: withV2, context: context)
        }
        var withEnterprise = web
        withEnterprise.captchaResponse = enterprise
        do throws(AuthError) {
            return try await backend.sendVerificationCode(request, verification: withEnterprise, context: context)
        } catch where enforcement == .audit && [.missingRecaptchaToken, .invalidAppCredential].contains(error.code) && tokens.v2 != nil {
            // AUDIT: Enterprise's token was missing or refused; the JavaScript SDK retries with reCAPTCHA v2.
            return try await backend.sendVerificationCode(request, verification: withV2, context: context)
        }
    }
}

extension Auth {
    /// Fetches the project's reCAPTCHA set-up for phone numbers (`GET v2/recaptchaConfig`), as Firebase's
    /// `initializeRecaptchaConfig()`: a check that the project answers it. Each phone verification asks for it again, as
    /// Firebase's Apple SDK does, so that a change in the console applies at once.
    ///
    /// - Throws: ``AuthError``: a network error, or the service's refusal.
    public func initializeRecaptchaConfig() async throws {
        _ = try await configuration.backend.recaptchaConfig(context: requestContext)
    }

    /// ``initializeRecaptchaConfig()`` with a completion handler, called on the callback queue.
    public func initializeRecaptchaConfig(completion: (@Sendable (Error?) -> Void)?) {
        complete({ (_: Bool?, error) in completion?(error) }) { () async throws in
            try await self.initializeRecaptchaConfig()
            return true
        }
    }
}
