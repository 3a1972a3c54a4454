import Foundation
import KeyringAuth
import SystemSupport

// Phone numbers: `StartPhoneVerification` (or `StartPhoneSecondFactor`, for a sign-in's SMS factor) verifies the app on
// a page in the person's browser, run here on the host, and has Firebase send the code, within ``PhoneSends``' bounds;
// the verification is a step of the caller's (``PendingSteps``) until `ConfirmPhoneVerification` uses its code.
extension Broker {
    /// How a phone call's page is shown, from its options.
    struct PhonePage: Sendable {
        /// Whether the broker opens the person's browser (else the app shows the address `PhoneVerificationPage` sends).
        var opensBrowser = true
    }

    /// What `ConfirmPhoneVerification` asks, from its options.
    struct PhoneConfirmation: Sendable {
        var purpose: PhoneVerification.Purpose?
        var displayName: String?
    }

    func performPhoneCall(
        _ operation: Request.Operation, auth: Auth, held: Auth?, scope: AuthScope, identity: CallerIdentity, call: MethodCall,
        appDictionary: [String: GVariants.Value]
    ) async throws {
        let app = identity.app
        switch operation {
        case .startPhoneVerification(let number, let purpose, let page):
            if purpose.needsUser { _ = try signedInUser(of: auth, in: scope) }
            let handle = try await sendPhoneCode(
                to: number, use: .number(purpose), page: page, auth: auth, identity: identity, scope: scope, call: call, appDictionary: appDictionary
            ) { provider, announce in
                let session = purpose == .enroll ? try await self.signedInUser(of: auth, in: scope).multiFactor.session() : nil
                return try await provider.verifyPhoneNumber(number, uiDelegate: nil, multiFactorSession: session, announcing: announce)
            }
            call.reply([GVariants.string(handle)])
        case .startPhoneSecondFactor(let signInHandle, let factorUID, let page):
            // The sign-in's step is given back at once: the person may still choose another of its factors.
            let taken = try pendingSteps.take(signInHandle, client: call.sender, scope: scope)
            letGo(pendingSteps.giveBack(taken))
            guard case .signIn(let resolver, let held) = taken.step else {
                throw BrokerError(.invalidArgument, "That handle is not a sign-in's second factor; pass the handle of SecondFactorRequired.")
            }
            guard let hint = resolver.hints.first(where: { $0.uid == factorUID }) as? PhoneMultiFactorInfo else {
                throw BrokerError(.invalidArgument, "The account has no SMS (phone) factor of uid \(BrokerArguments.quoted(factorUID)); "
                    + "use one of the factors SecondFactorRequired listed.")
            }
            let handle = try await sendPhoneCode(
                to: "factor:" + factorUID, use: .secondFactor(resolver, held: held, signInHandle: signInHandle), page: page, auth: auth,
                identity: identity, scope: scope, call: call, appDictionary: appDictionary
            ) { provider, announce in
                try await provider.verifyPhoneNumber(with: hint, uiDelegate: nil, multiFactorSession: resolver.session, announcing: announce)
            }
            call.reply([GVariants.string(handle)])
        case .confirmPhoneVerification(let handle, let code, let confirmation):
            try await confirmPhoneVerification(handle, code: code, confirmation, auth: auth, held: held, scope: scope, app: app, call: call)
        default:
            throw BrokerError(.failed, "The broker has no phone call of that name (a bug in keyring-auth-broker).")
        }
    }

    /// Has a code sent to `number` (a second factor's `factor:UID`) with `send`, within the bounds of ``PhoneSends`` and
    /// as the app's one browser flow (``BrowserFlows``), and keeps its verification as a step of the caller's; answers
    /// the step's handle. The page's address goes to the caller in `PhoneVerificationPage` before the browser opens.
    private func sendPhoneCode(
        to number: String, use: PhoneVerification.Use, page: PhonePage, auth: Auth, identity: CallerIdentity, scope: AuthScope,
        call: MethodCall, appDictionary: [String: GVariants.Value],
        _ send: @escaping @Sendable (PhoneAuthProvider, @escaping @Sendable (URL) -> Void) async throws -> String
    ) async throws -> String {
        let app = identity.app
        let reservation = try phoneSends.reserve(app: app, number: number)
        let handle: String
        do {
            handle = try pendingSteps.reserve(client: call.sender, app: app, scope: scope)
        } catch {
            phoneSends.cancelled(reservation)
            throw error
        }
        let provider = PhoneAuthProvider.provider(auth: auth)
        provider.browser = page.opensBrowser ? .system : .none
        let (client, group, bus) = (call.sender, scope.group?.rawValue ?? "", currentBus)
        let announce: @Sendable (URL) -> Void = { url in
            let parameters = GVariantValues.tuple([GVariants.dictionary(appDictionary), GVariants.string(group), GVariants.string(url.absoluteString)])
            bus?.emitSignal("PhoneVerificationPage", to: client, parameters: parameters)
        }
        let verificationID: String
        do {
            verificationID = try await browserFlows.run(for: app, client: client, isHost: identity.caller == .host) {
                try await send(provider, announce)
            }
        } catch {
            phoneSends.cancelled(reservation)
            letGo(pendingSteps.finish(handle))
            throw error
        }
        phoneSends.sent(reservation)
        try pendingSteps.fill(handle, with: .phone(PhoneVerification(verificationID: verificationID, use: use)), lifetime: PendingSteps.lifetime)
        logger.info("Sent a phone verification's code", metadata: ["app": "\(app)"])
        return handle
    }

    /// Uses the code of the verification `handle` as its purpose says, and answers the user. A wrong code gives the
    /// step back for another try, until the last of ``PhoneVerification/maximumWrongCodes``; an expired session ends it.
    private func confirmPhoneVerification(
        _ handle: String, code: String, _ confirmation: PhoneConfirmation, auth: Auth, held: Auth?, scope: AuthScope, app: String,
        call: MethodCall
    ) async throws {
        let taken = try pendingSteps.take(handle, client: call.sender, scope: scope)
        guard case .phone(let verification) = taken.step else {
            letGo(pendingSteps.giveBack(taken))
            throw BrokerError(.invalidArgument, "That handle is not a phone verification's; start one with StartPhoneVerification.")
        }
        let credential = PhoneAuthProvider.provider(auth: auth).credential(withVerificationID: verification.verificationID, verificationCode: code)
        let reply: OpaquePointer
        do {
            reply = try await usePhoneCredential(
                credential, of: verification, confirmation, auth: auth, held: held, scope: scope, app: app, call: call)
        } catch let error as AuthError where error.code == .invalidVerificationCode {
            guard verification.wrongCodeEnds() else {
                letGo(pendingSteps.giveBack(taken))
                throw BrokerError(.backend, "\(error.code.userInfoName): \(verification.triesLeft) more tries of this verification's code are "
                    + "left; check the SMS and call again with the same handle. \(error.message)")
            }
            letGo(pendingSteps.finish(handle))
            throw BrokerError(.backend, "\(error.code.userInfoName): That was the \(PhoneVerification.maximumWrongCodes)th wrong code of this "
                + "verification, which has ended; start a new one for a new code. \(error.message)")
        } catch let error as AuthError where [.sessionExpired, .invalidVerificationID].contains(error.code) {
            letGo(pendingSteps.finish(handle))
            throw Self.brokerError(from: error)
        } catch {
            letGo(pendingSteps.giveBack(taken))
            throw error
        }
        letGo(pendingSteps.finish(handle))
        if case .secondFactor(_, _, let signInHandle) = verification.use { letGo(pendingSteps.finish(signInHandle)) }
        call.reply([reply])
    }

    /// Signs in, links, reauthenticates, changes the number or enrolls with `credential`, or finishes a sign-in's second
    /// factor; answers the user (a held sign-in's, for `CommitSignIn`).
    private func usePhoneCredential(
        _ credential: PhoneAuthCredential, of verification: PhoneVerification, _ confirmation: PhoneConfirmation, auth: Auth, held: Auth?,
        scope: AuthScope, app: String, call: MethodCall
    ) async throws -> OpaquePointer {
        let purpose: PhoneVerification.Purpose
        switch verification.use {
        case .secondFactor(let resolver, let heldSignIn, _):
            guard confirmation.purpose == nil else {
                throw BrokerError(.invalidArgument, "A second factor's verification finishes its sign-in; leave purpose out.")
            }
            let user = try await resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(with: credential)).user
            // A held sign-in stays held to its end: its user is on the scratch Auth, for CommitSignIn.
            if let heldAuth = heldSignIn { return try self.heldSignIn(user, on: heldAuth, scope, app, call) }
            userChanged(in: scope, to: auth.currentUser)
            return UserDictionary.variant(of: user)
        case .number(let started):
            purpose = confirmation.purpose ?? started
            guard purpose == started || (purpose.isInterchangeable && started.isInterchangeable) else {
                throw BrokerError(.invalidArgument, "A verification started to enroll a second factor enrolls it, and only such a verification "
                    + "does; start one with purpose \(purpose.rawValue).")
            }
        }
        if purpose == .signIn {
            return try await signIn(scope, app, call, held: held) { try await (held ?? auth).signIn(with: credential) }
        }
        let user = try signedInUser(of: auth, in: scope)
        switch purpose {
        case .signIn, .link:
            _ = try await user.link(with: credential)
        case .reauthenticate:
            let answer = try await signIn(scope, app, call) { try await user.reauthenticate(with: credential) }
            userChanged(in: scope, to: auth.currentUser)
            return answer
        case .update:
            try await user.updatePhoneNumber(credential)
        case .enroll:
            try await user.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(with: credential), displayName: confirmation.displayName)
        }
        userChanged(in: scope, to: auth.currentUser)
        return UserDictionary.variant(of: auth.currentUser)
    }
}
