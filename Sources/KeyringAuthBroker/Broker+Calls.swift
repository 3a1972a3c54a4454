import Foundation
import KeyringAuth
import SystemSupport

// The calls of `Broker1`: each checked on the main thread, then run as a task for its caller's app and scope.
extension Broker {
    /// Checks a call's arguments on the main thread and runs it as a task.
    func handle(_ call: MethodCall) {
        activity.begin()
        let work: @Sendable () async throws -> Void
        do throws(BrokerError) {
            if call.interface == BrokerInterface.keychainName {
                let request = try KeychainRequest(call)
                work = { try await self.perform(request, for: call) }
            } else {
                let request = try Request(call)
                // The call's language and App Check token, for its requests only: the scope's Auth is shared.
                work = {
                    try await Auth.$languageCodeOfTask.withValue(request.arguments.languageCode) {
                        try await Auth.$appCheckTokenOfTask.withValue(request.arguments.appCheckToken) { try await self.perform(request, for: call) }
                    }
                }
            }
        } catch {
            logger.info("Refused a call", metadata: ["method": "\(call.method)", "error": "\(error.kind.rawValue)"])
            call.fail(error)
            activity.end()
            return
        }
        Task {
            defer { activity.end() }
            do {
                try await work()
            } catch let error as BrokerError {
                logger.info("A call failed", metadata: ["method": "\(call.method)", "error": "\(error.kind.rawValue)"])
                call.fail(error)
            } catch {
                call.fail(Self.brokerError(from: error))
            }
        }
    }

    private func perform(_ request: Request, for call: MethodCall) async throws {
        let identity = try await identify(call.sender)
        guard let secret = request.arguments.appCheckDebugToken else { return try await perform(request, for: call, as: identity) }
        // A host app's debug secret: the broker exchanges it as the app's debug provider would, the token kept in the
        // keyring for the app's Firebase app; a sandboxed app obtains its own token (appCheckToken).
        guard identity.caller == .host else {
            throw BrokerError(.accessDenied, "A sandboxed app cannot have the broker exchange an App Check debug secret (appCheckDebugToken); "
                + "obtain the app's token with its App Check provider and pass it as appCheckToken.")
        }
        try Self.checkEmulator(request.arguments, for: identity)
        let appCheck = AppCheck.debug(
            options: request.arguments.options, debugToken: secret, store: store, environment: [:],
            endpoint: try endpoint(forEmulator: request.arguments.emulatorHost), logger: logger)
        let token = await appCheck.tokenForAuthRequest()
        try await Auth.$appCheckTokenOfTask.withValue(token) { try await self.perform(request, for: call, as: identity) }
    }

    private func perform(_ request: Request, for call: MethodCall, as identity: CallerIdentity) async throws {
        let caller = identity.caller
        try policy.check(caller, group: request.arguments.group)
        try Self.checkEmulator(request.arguments, for: identity)
        let scope = AuthScope(
            options: Self.storedOptions(request.arguments.options, for: caller), group: request.arguments.group,
            emulatorHost: request.arguments.emulatorHost)
        let app = identity.app
        try callsInProgress.begin(app)
        defer { callsInProgress.end(app) }
        let auth = try await auth(for: scope, heldBy: app, client: call.sender)
        defer { release(scope, heldBy: app) }
        // A held sign-in runs on a scratch Auth of its own, in memory: nothing is stored before CommitSignIn.
        let held = request.arguments.holdSignIn && request.signsIn ? try makeAuth(for: scope, scratch: true) : nil
        let signingIn = held ?? auth
        switch request.operation {
        case .signInAnonymously:
            if held != nil, let current = auth.currentUser, current.isAnonymous {
                // Already signed in anonymously: no change to hold, as the sign-in answers the current user.
                call.reply([UserDictionary.variant(of: current)])
            } else {
                call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signInAnonymously() }])
            }
        case .signInWithEmail(let email, let password):
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(withEmail: email, password: password) }])
        case .createUserWithEmail(let email, let password):
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.createUser(withEmail: email, password: password) }])
        case .signInWithEmailLink(let email, let link):
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(withEmail: email, link: link) }])
        case .signInWithCustomToken(let token):
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(withCustomToken: token) }])
        case .signInWithBrowser(let browser):
            let credential = try await browserCredential(browser, for: identity, scope: scope, auth: auth, client: call.sender)
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(with: credential) }])
        case .linkWithBrowser(let browser):
            let user = try signedInUser(of: auth, in: scope)
            let credential = try await browserCredential(browser, for: identity, scope: scope, auth: auth, client: call.sender)
            _ = try await user.link(with: credential)
            userChanged(in: scope, to: auth.currentUser)
            call.reply([UserDictionary.variant(of: auth.currentUser)])
        case .reauthenticateWithBrowser(let browser):
            let user = try signedInUser(of: auth, in: scope)
            let credential = try await browserCredential(browser, for: identity, scope: scope, auth: auth, client: call.sender)
            call.reply([try await signIn(scope, app, call) { try await user.reauthenticate(with: credential) }])
            userChanged(in: scope, to: auth.currentUser)
        case .signInWithCredential(let credential):
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(with: credential) }])
        case .startGitHubSignIn(let clientID, let scopes):
            call.reply(try await startGitHubSignIn(clientID: clientID, scopes: scopes, scope: scope, app: app, client: call.sender))
        case .finishGitHubSignIn(let handle):
            let credential = try await finishGitHubSignIn(handle, scope: scope, app: app, client: call.sender, isHost: caller == .host)
            call.reply([try await signIn(scope, app, call, held: held) { try await signingIn.signIn(with: credential) }])
        case .getUser:
            call.reply([UserDictionary.variant(of: auth.currentUser)])
        case .updateCurrentUser(let source, let uid):
            // The user of another app or scope of this caller's, which it must be allowed too, becomes this scope's.
            try policy.check(caller, group: source.group)
            try Self.checkEmulator(source, for: identity)
            let sourceScope = AuthScope(
                options: Self.storedOptions(source.options, for: caller), group: source.group, emulatorHost: source.emulatorHost)
            let sourceAuth = try await self.auth(for: sourceScope, heldBy: app, client: call.sender)
            defer { release(sourceScope, heldBy: app) }
            guard let user = sourceAuth.currentUser, user.uid == uid else {
                throw BrokerError(.notSignedIn, "The user \(BrokerArguments.quoted(uid)) is no longer signed in to \(sourceScope.description) "
                    + "of the app it came from; pass a user signed in there now.")
            }
            do { try await auth.updateCurrentUser(user) } catch { throw Self.brokerError(from: error) }
            userChanged(in: scope, to: auth.currentUser)
            call.reply([UserDictionary.variant(of: auth.currentUser)])
        case .signOut:
            try await blocking.run { () throws(BrokerError) in
                do { try auth.signOut() } catch { throw Self.brokerError(from: error) }
            }
            call.reply()
        case .watch:
            try watch(scope, auth: auth, client: call.sender, app: request.arguments.appDictionary, holder: app)
            call.reply()
        case .unwatch:
            unwatch(scope, client: call.sender)
            call.reply()
        case .startPhoneVerification, .startPhoneSecondFactor, .confirmPhoneVerification:
            try await performPhoneCall(
                request.operation, auth: auth, held: held, scope: scope, identity: identity, call: call, appDictionary: request.arguments.appDictionary)
        default:
            try await performAccountCall(request.operation, auth: auth, scope: scope, app: app, call: call)
        }
    }

    /// The scope's signed-in user, or `NotSignedIn`.
    func signedInUser(of auth: Auth, in scope: AuthScope) throws(BrokerError) -> User {
        guard let user = auth.currentUser else {
            throw BrokerError(.notSignedIn, "Nobody is signed in to \(scope.description); sign in first.")
        }
        return user
    }

    /// Runs a browser flow for the caller's app, one at a time per app (``BrowserFlows``), and answers its credential.
    private func browserCredential(
        _ browser: BrowserSignIn, for identity: CallerIdentity, scope: AuthScope, auth: Auth, client: String
    ) async throws -> AuthCredential {
        let (logger, addresses, gitHubHost, caller) = (logger, Self.reachableAddresses(for: scope), gitHubHost, identity.caller)
        try browser.checkNetwork(of: identity)
        return try await browserFlows.run(for: identity.app, client: client, isHost: caller == .host) {
            try await browser.credential(for: caller, auth: auth, addresses: addresses, gitHubHost: gitHubHost, logger: logger)
        }
    }

    /// Runs a sign-in and answers its user; one that meets the account's second factor keeps its resolver for this
    /// connection and fails with `SecondFactorRequired`, which carries the handle that finishes it. A sign-in run on
    /// `held`, a scratch `Auth`, is held (``heldSignIn(_:on:_:_:_:)``), its second factor's too.
    func signIn(
        _ scope: AuthScope, _ app: String, _ call: MethodCall, held: Auth? = nil, _ body: () async throws -> AuthDataResult
    ) async throws -> OpaquePointer {
        do {
            let user = try await body().user
            guard let held else { return UserDictionary.variant(of: user) }
            return try heldSignIn(user, on: held, scope, app, call)
        } catch let error as AuthError where error.code == .secondFactorRequired {
            guard let resolver = error.multiFactorResolver else { throw error }
            let handle = try pendingSteps.add(.signIn(resolver, held: held), client: call.sender, app: app, scope: scope)
            throw BrokerError.secondFactorRequired(handle: handle, factors: resolver.hints)
        }
    }

    /// Keeps a held sign-in's `user`, signed in on the scratch `Auth` `held`, for this connection's `CommitSignIn` (or
    /// `DropSignIn`), and answers it with the handle that does so (`heldSignIn`).
    func heldSignIn(_ user: User, on held: Auth, _ scope: AuthScope, _ app: String, _ call: MethodCall) throws(BrokerError) -> OpaquePointer {
        let handle = try pendingSteps.add(.heldSignIn(user, held), client: call.sender, app: app, scope: scope)
        var values = UserDictionary.values(of: user)
        values["heldSignIn"] = .string(handle)
        return GVariants.dictionary(values)
    }

    /// The options under which `caller`'s app is stored: a sandboxed app's private scope is keyed by
    /// its verified identity (its app name gets the prefix `flatpak:APPID:` or `snap:NAME:`), so
    /// no other app reaches it, whatever Firebase app ID it passes.
    static func storedOptions(_ options: AuthAppOptions, for caller: Caller) -> AuthAppOptions {
        var options = options
        options.appName = caller.privateNamespace + options.appName
        return options
    }

    /// Where the broker's own requests to hosts a caller names may go: for an app that named an emulator (a caller
    /// with the network: its providers in tests run on loopback too), anywhere; else public addresses only, so that no
    /// caller reaches this machine's or its network's services through the broker.
    private static func reachableAddresses(for scope: AuthScope) -> ReachableAddresses { scope.emulatorHost == nil ? .publicOnly : .any }

    /// Refuses an emulator to a caller that could not reach it itself: the broker is no way out of a sandbox.
    private static func checkEmulator(_ arguments: BrokerArguments, for identity: CallerIdentity) throws(BrokerError) {
        guard arguments.emulatorHost != nil, !identity.sharesNetwork else { return }
        throw BrokerError(.accessDenied, "This app (\(identity.caller)) has no network permission (Flatpak's --share=network), so the "
            + "broker reaches no emulator for it; give the app that permission to use the emulator, or leave emulatorHost out.")
    }
}
