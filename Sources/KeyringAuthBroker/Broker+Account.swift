import Foundation
import KeyringAuth

// The calls after sign-in, as `Auth` and `User` make them: the user's tokens and profile, its credentials, email
// actions, and second factors. Every call that changes the user sends `UserChanged` to the scope's watchers.
extension Broker {
    func performAccountCall(_ operation: Request.Operation, auth: Auth, scope: AuthScope, app: String, call: MethodCall) async throws {
        func signedInUser() throws(BrokerError) -> User { try self.signedInUser(of: auth, in: scope) }
        /// Answers the user as it is now, after telling the scope's watchers.
        func replyChangedUser() {
            userChanged(in: scope, to: auth.currentUser)
            call.reply([UserDictionary.variant(of: auth.currentUser)])
        }
        switch operation {
        case .getIDToken(let forceRefresh):
            // Concurrent calls share one refresh: `User` runs one at a time and hands its token to every caller.
            call.reply([GVariants.string(try await signedInUser().getIDToken(forcingRefresh: forceRefresh))])
        case .getIDTokenResult(let forceRefresh):
            call.reply([GVariants.dictionary(Self.values(of: try await signedInUser().getIDTokenResult(forcingRefresh: forceRefresh)))])
        case .reload:
            try await signedInUser().reload()
            replyChangedUser()
        case .updateProfile(let change):
            let request = try signedInUser().createProfileChangeRequest()
            if let name = change.displayName { request.displayName = name.nonEmpty }
            if let photo = change.photoURL { request.photoURL = photo.nonEmpty.flatMap(URL.init(string:)) }
            try await request.commitChanges()
            replyChangedUser()
        case .updatePassword(let password):
            try await signedInUser().updatePassword(to: password)
            userChanged(in: scope, to: auth.currentUser)
            call.reply()
        case .verifyBeforeUpdateEmail(let email, let settings):
            try await signedInUser().sendEmailVerification(beforeUpdatingEmail: email, actionCodeSettings: settings)
            call.reply()
        case .sendEmailVerification(let settings):
            try await signedInUser().sendEmailVerification(with: settings)
            call.reply()
        case .reauthenticate(let credential):
            let user = try signedInUser()
            call.reply([try await signIn(scope, app, call) { try await user.reauthenticate(with: credential) }])
            userChanged(in: scope, to: auth.currentUser)
        case .link(let credential):
            _ = try await signedInUser().link(with: credential)
            replyChangedUser()
        case .unlink(let providerID):
            _ = try await signedInUser().unlink(fromProvider: providerID)
            replyChangedUser()
        case .delete:
            try await signedInUser().delete()
            userChanged(in: scope, to: auth.currentUser)
            call.reply()
        case .sendPasswordReset(let email, let settings):
            try await auth.sendPasswordReset(withEmail: email, actionCodeSettings: settings)
            call.reply()
        case .commitSignIn(let handle):
            // The step is this call's until the user is stored: a failure gives it back, for another CommitSignIn.
            try await usingStep(handle, call: call, scope: scope) { step in
                guard case .heldSignIn(let user, _) = step else { throw Self.notAHeldSignIn }
                try await auth.updateCurrentUser(user)
            }
            userChanged(in: scope, to: auth.currentUser)
            call.reply([UserDictionary.variant(of: auth.currentUser)])
        case .dropSignIn(let handle):
            try await usingStep(handle, call: call, scope: scope) { step in
                guard case .heldSignIn = step else { throw Self.notAHeldSignIn }
            }
            call.reply()
        case .getPasswordPolicy:
            call.reply([GVariants.dictionary(Self.values(of: try await auth.passwordPolicy()))])
        case .fetchSignInMethods(let email):
            call.reply([GVariants.array(of: try await auth.signInMethods(forEmail: email))])
        case .verifyPasswordResetCode(let code):
            call.reply([GVariants.string(try await auth.verifyPasswordResetCode(code))])
        case .confirmPasswordReset(let code, let newPassword):
            try await auth.confirmPasswordReset(withCode: code, newPassword: newPassword)
            call.reply()
        case .checkActionCode(let code):
            let info = try await auth.checkActionCode(code)
            var values: [String: GVariants.Value] = ["operation": .string(Self.name(of: info.operation)), "email": .string(info.email)]
            if let previous = info.previousEmail { values["previousEmail"] = .string(previous) }
            call.reply([GVariants.dictionary(values)])
        case .applyActionCode(let code):
            try await auth.applyActionCode(code)
            // Verifying the address changes the signed-in user once it is read again.
            if let user = auth.currentUser { try? await user.reload() }
            userChanged(in: scope, to: auth.currentUser)
            call.reply()
        case .sendSignInLink(let email, let settings):
            try await auth.sendSignInLink(toEmail: email, actionCodeSettings: settings)
            call.reply()
        case .resolveSignInWithTOTP(let handle, let factorUID, let code):
            // A wrong code gives the step back: it may be given again with the same handle, until it expires.
            let (user, held) = try await usingStep(handle, call: call, scope: scope) { step -> (User, Auth?) in
                guard case .signIn(let resolver, let held) = step else {
                    throw BrokerError(.invalidArgument, "That handle is an enrollment's; finish it with FinishTOTPEnrollment.")
                }
                guard resolver.hints.contains(where: { $0.uid == factorUID && $0.factorID == TOTPMultiFactorID }) else {
                    throw BrokerError(.invalidArgument, "The account has no authenticator-app (totp) factor of uid \(BrokerArguments.quoted(factorUID)); "
                        + "use one of the factors SecondFactorRequired listed.")
                }
                let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factorUID, oneTimePassword: code)
                return (try await resolver.resolveSignIn(with: assertion).user, held)
            }
            // A held sign-in stays held to its end: its user is on the scratch Auth, for CommitSignIn.
            if let held {
                call.reply([try heldSignIn(user, on: held, scope, app, call)])
                return
            }
            userChanged(in: scope, to: auth.currentUser)
            call.reply([UserDictionary.variant(of: user)])
        case .startTOTPEnrollment(let accountName, let issuer):
            let user = try signedInUser()
            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            let handle = try pendingSteps.add(.enrollment(secret), client: call.sender, app: app, scope: scope)
            let uri = secret.generateQRCodeURL(
                withAccountName: accountName ?? user.email ?? user.uid, issuer: issuer ?? scope.options.projectID)
            call.reply([GVariants.string(handle), GVariants.string(uri)])
        case .finishTOTPEnrollment(let handle, let code, let displayName):
            // A wrong code gives the step back, as for a sign-in's.
            try await usingStep(handle, call: call, scope: scope) { step in
                guard case .enrollment(let secret) = step else {
                    throw BrokerError(.invalidArgument, "That handle is a sign-in's; finish it with ResolveSignInWithTOTP.")
                }
                let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: code)
                try await signedInUser().multiFactor.enroll(with: assertion, displayName: displayName)
            }
            replyChangedUser()
        case .unenroll(let factorUID):
            try await signedInUser().multiFactor.unenroll(withFactorUID: factorUID)
            replyChangedUser()
        default:
            throw BrokerError(.failed, "The broker has no account call of that name (a bug in keyring-auth-broker).")
        }
    }

    private static let notAHeldSignIn = BrokerError(
        .invalidArgument, "That handle is not a held sign-in's; a sign-in with holdSignIn answers one (heldSignIn).")

    /// Takes the step of `handle` (this connection's, in `scope`) for `body`: ended when `body` succeeds, given back when
    /// it throws, so that two calls never use one step at once and a failure (a wrong code, a keychain that cannot store
    /// the held user) loses none.
    private func usingStep<Result>(
        _ handle: String, call: MethodCall, scope: AuthScope, _ body: (PendingSteps.Step) async throws -> Result
    ) async throws -> Result {
        let taken = try pendingSteps.take(handle, client: call.sender, scope: scope)
        let result: Result
        do {
            result = try await body(taken.step)
        } catch {
            letGo(pendingSteps.giveBack(taken))
            throw error
        }
        letGo(pendingSteps.finish(taken.handle))
        return result
    }

    /// An ID token's result as the broker sends it: the token, its claims as JSON, its times in Unix seconds.
    static func values(of result: AuthTokenResult) -> [String: GVariants.Value] {
        func seconds(_ date: Date) -> GVariants.Value { .int64(Int64(date.timeIntervalSince1970.rounded(.down))) }
        let claims = (try? JSONSerialization.data(withJSONObject: result.claims as [String: Any], options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        var values: [String: GVariants.Value] = [
            "token": .string(result.token), "claims": .string(claims), "authDate": seconds(result.authDate),
            "issuedAtDate": seconds(result.issuedAtDate), "expirationDate": seconds(result.expirationDate),
            "signInProvider": .string(result.signInProvider),
        ]
        if !result.signInSecondFactor.isEmpty { values["signInSecondFactor"] = .string(result.signInSecondFactor) }
        return values
    }

    /// A password policy as the broker sends it: Identity Toolkit's fields, flat, each present when the service gave it;
    /// `allowedNonAlphanumericCharacters` as one string of them.
    static func values(of policy: PasswordPolicyAnswer) -> [String: GVariants.Value] {
        var values: [String: GVariants.Value] = [:]
        let options = policy.customStrengthOptions
        let lengths = ["minPasswordLength": options?.minPasswordLength, "maxPasswordLength": options?.maxPasswordLength, "schemaVersion": policy.schemaVersion]
        for case let (key, value?) in lengths { values[key] = .int64(Int64(value)) }
        let flags = [
            "containsLowercaseCharacter": options?.containsLowercaseCharacter, "containsUppercaseCharacter": options?.containsUppercaseCharacter,
            "containsNumericCharacter": options?.containsNumericCharacter,
            "containsNonAlphanumericCharacter": options?.containsNonAlphanumericCharacter, "forceUpgradeOnSignin": policy.forceUpgradeOnSignin,
        ]
        for case let (key, value?) in flags { values[key] = .bool(value) }
        if let characters = policy.allowedNonAlphanumericCharacters { values["allowedNonAlphanumericCharacters"] = .string(characters.joined()) }
        if let state = policy.enforcementState { values["enforcementState"] = .string(state) }
        return values
    }

    /// The operation's name as Identity Toolkit writes it (`PASSWORD_RESET`, …).
    static func name(of operation: ActionCodeOperation) -> String {
        switch operation {
        case .passwordReset: "PASSWORD_RESET"
        case .verifyEmail: "VERIFY_EMAIL"
        case .recoverEmail: "RECOVER_EMAIL"
        case .emailLink: "EMAIL_SIGNIN"
        case .verifyAndChangeEmail: "VERIFY_AND_CHANGE_EMAIL"
        case .revertSecondFactorAddition: "REVERT_SECOND_FACTOR_ADDITION"
        case .unknown: "UNKNOWN"
        }
    }
}
