import Foundation
import Synchronization

/// The emulator's operations, apart from any server: a request in, an answer out, accounts in memory.
/// Every failure is an answer in the real service's error shape; nothing here traps on input.
final class EmulatorService: Sendable {
    struct State {
        var accounts: [String: EmulatorAccount] = [:]
        /// `tenant|email` → uid.
        var uidsByEmail: [String: String] = [:]
        /// `tenant|provider|rawId` → uid.
        var uidsByIdentity: [String: String] = [:]
        /// `tenant|phoneNumber` → uid.
        var uidsByPhone: [String: String] = [:]
        /// The tenants, by ID: made by the Admin API, or on first use of their ID, as Firebase's emulator does.
        var tenants: [String: EmulatorTenant] = [:]
        /// The last ``EmulatorService/maximumReceivedRequests`` requests, oldest first.
        var received: [AuthEmulator.ReceivedRequest] = []
        /// Email action codes not yet used, oldest first (at most ``EmulatorService/maximumOutOfBandCodes``).
        var oobCodes: [OutOfBandRecord] = []
        /// TOTP enrollments begun, by `sessionInfo`; first factors passed awaiting a second, by `mfaPendingCredential`.
        var pendingEnrollments: [String: PendingEnrollment] = [:]
        var pendingSignIns: [String: PendingSecondFactor] = [:]
        /// Phone verification codes not yet used, oldest first (at most ``EmulatorService/maximumVerificationCodes``).
        var verificationCodes: [PhoneVerificationRecord] = []
        /// Proofs of a verified number another account has (`temporaryProof`), oldest first (at most
        /// ``EmulatorService/maximumVerificationCodes``).
        var temporaryProofs: [TemporaryProof] = []
        /// The stand-in reCAPTCHA's tokens not yet used, oldest first (at most ``EmulatorService/maximumRecaptchaTokens``).
        var recaptchaTokens: [StandInRecaptchaToken] = []
        /// Identity provider sign-ins begun by `createAuthUri`, oldest first (at most
        /// ``EmulatorService/maximumPendingIdpSignIns``).
        var idpSignIns: [PendingIdpSignIn] = []
        var settings: AuthEmulator.Settings
        /// The project config's `blockingFunctions.forwardInboundCredentials`, kept and listed (no function is called).
        var forwardInboundCredentials: [String: Bool] = [:]
        /// The last ``EmulatorService/maximumAppCheckExchanges`` App Check exchanges asked for, oldest first.
        var appCheckExchanges: [AuthEmulator.AppCheckExchange] = []
    }

    let projectID: String
    let tokenLifetime: Int64
    let maximumAccounts: Int
    let clock: @Sendable () -> Date
    let state: Mutex<State>
    /// How long an email action code lasts, in seconds.
    let oobCodeLifetime: Int64
    /// Told of each email action code as it is made.
    let oobCodeHandler: (@Sendable (AuthEmulator.OutOfBandCode) -> Void)?
    /// Told of each phone verification code as it is made.
    let verificationCodeHandler: (@Sendable (AuthEmulator.VerificationCode) -> Void)?
    /// The stand-in reCAPTCHA, when the test option is on.
    let recaptcha: AuthEmulator.StandInRecaptcha?
    /// App Check's debug tokens and enforcement; `nil`: the header is ignored and no debug token passes.
    let appCheck: AuthEmulator.AppCheckSettings?
    /// Issues and checks App Check tokens, under this emulator's own key.
    let appCheckTokens = AppCheckTokens()

    init(configuration: AuthEmulator.Configuration, clock: @escaping @Sendable () -> Date = Date.init) {
        projectID = configuration.projectID
        tokenLifetime = min(max(1, configuration.tokenLifetime.components.seconds), Int64(AuthEmulator.maximumTokenLifetimeSeconds))
        maximumAccounts = configuration.maximumAccounts
        self.clock = clock
        oobCodeLifetime = max(1, configuration.oobCodeLifetime.components.seconds)
        oobCodeHandler = configuration.onOutOfBandCode
        verificationCodeHandler = configuration.onVerificationCode
        recaptcha = configuration.recaptcha
        appCheck = configuration.appCheck
        state = Mutex(State(settings: configuration.settings))
    }
}
