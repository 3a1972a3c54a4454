import KeyringAuth
import Logging
import SystemSupport

/// A call to the broker, its arguments read and checked on arrival.
struct Request: Sendable {
    enum Operation: Sendable {
        case signInAnonymously
        case signInWithEmail(email: String, password: String)
        case createUserWithEmail(email: String, password: String)
        case signInWithEmailLink(email: String, link: String)
        case signInWithCustomToken(String)
        case signInWithCredential(AuthCredential)
        case signInWithBrowser(BrowserSignIn)
        case getUser
        case getIDToken(forceRefresh: Bool)
        case signOut
        case watch
        case unwatch
    }

    let arguments: BrokerArguments
    let operation: Operation

    /// Reads `call`'s arguments, whose types GDBus has checked against the interface.
    init(_ call: MethodCall) throws(BrokerError) {
        let parameters = call.parameters
        let app = GVariants.child(at: 0, of: parameters)
        defer { GVariants.release(app) }
        arguments = try BrokerArguments(app: app, group: GVariantValues.string(at: 1, of: parameters))
        func string(_ index: Int, _ name: String, limit: Int) throws(BrokerError) -> String {
            let value = GVariantValues.string(at: index, of: parameters)
            try BrokerArguments.checkString(value, of: name, limit: limit)
            guard !value.isEmpty else { throw BrokerError(.invalidArgument, "\(name) must not be empty.") }
            return value
        }
        switch call.method {
        case "SignInAnonymously": operation = .signInAnonymously
        case "SignInWithEmail", "CreateUserWithEmail":
            let email = try string(2, "email", limit: BrokerArguments.maximumEmailSize)
            let password = try string(3, "password", limit: BrokerArguments.maximumPasswordSize)
            operation = call.method == "SignInWithEmail"
                ? .signInWithEmail(email: email, password: password) : .createUserWithEmail(email: email, password: password)
        case "SignInWithEmailLink":
            operation = .signInWithEmailLink(
                email: try string(2, "email", limit: BrokerArguments.maximumEmailSize),
                link: try string(3, "link", limit: BrokerArguments.maximumTokenSize))
        case "SignInWithCustomToken":
            operation = .signInWithCustomToken(try string(2, "token", limit: BrokerArguments.maximumTokenSize))
        case "SignInWithCredential":
            let dictionary = GVariants.child(at: 2, of: parameters)
            defer { GVariants.release(dictionary) }
            operation = .signInWithCredential(try Self.credential(from: dictionary))
        case "SignInWithBrowser":
            let dictionary = GVariants.child(at: 2, of: parameters)
            defer { GVariants.release(dictionary) }
            operation = .signInWithBrowser(try BrowserSignIn(dictionary))
        case "GetUser": operation = .getUser
        case "GetIDToken": operation = .getIDToken(forceRefresh: GVariantValues.bool(at: 2, of: parameters))
        case "SignOut": operation = .signOut
        case "Watch": operation = .watch
        case "Unwatch": operation = .unwatch
        default: throw BrokerError(.invalidArgument, "The broker has no method \(BrokerArguments.quoted(call.method)).")
        }
    }

    /// A provider's credential from `providerID` and its tokens.
    static func credential(from variant: OpaquePointer) throws(BrokerError) -> AuthCredential {
        let strings = try GVariants.strings(
            of: variant, name: "credential", keys: ["providerID", "idToken", "accessToken", "secret", "rawNonce"],
            limit: BrokerArguments.maximumTokenSize, shape: "a dictionary (a{sv}) of providerID, idToken, accessToken, secret, rawNonce"
        ).filter { !$0.value.isEmpty }
        guard let providerID = strings["providerID"] else {
            throw BrokerError(.invalidArgument, "credential needs providerID, for example google.com.")
        }
        guard providerID != "password" else {
            throw BrokerError(.invalidArgument, "A password is signed in with SignInWithEmail, not as a credential.")
        }
        if providerID == "twitter.com" {
            guard let token = strings["accessToken"], let secret = strings["secret"] else {
                throw BrokerError(.invalidArgument, "A twitter.com credential needs accessToken and secret.")
            }
            return TwitterAuthProvider.credential(withToken: token, secret: secret)
        }
        switch (strings["idToken"], strings["accessToken"]) {
        case (let idToken?, let accessToken):
            if let rawNonce = strings["rawNonce"] {
                return OAuthProvider.credential(withProviderID: providerID, idToken: idToken, rawNonce: rawNonce, accessToken: accessToken)
            }
            return OAuthProvider.credential(withProviderID: providerID, idToken: idToken, accessToken: accessToken)
        case (nil, let accessToken?):
            return OAuthProvider.credential(withProviderID: providerID, accessToken: accessToken)
        case (nil, nil):
            throw BrokerError(.invalidArgument, "A \(BrokerArguments.quoted(providerID)) credential needs idToken or accessToken.")
        }
    }
}

/// The desktop OAuth flow a client asks the broker to run in the user's browser: Google, or an OpenID Connect
/// provider by its issuer, with the app's desktop OAuth client.
struct BrowserSignIn: Sendable {
    var providerID: String
    var issuer: String?
    var clientID: String
    var clientSecret: String?

    private static let keys = ["providerID", "issuer", "clientID", "clientSecret"]

    init(_ variant: OpaquePointer) throws(BrokerError) {
        let strings = try GVariants.strings(
            of: variant, name: "provider", keys: Self.keys, limit: BrokerArguments.maximumAppValueSize * 4,
            shape: "a dictionary (a{sv}) of providerID, clientID, and issuer and clientSecret where needed"
        ).filter { !$0.value.isEmpty }
        guard let providerID = strings["providerID"], let clientID = strings["clientID"] else {
            throw BrokerError(.invalidArgument, "provider needs providerID (google.com, or the oidc. ID set up in Firebase) and clientID (the app's desktop OAuth client).")
        }
        guard providerID == "google.com" || strings["issuer"] != nil else {
            throw BrokerError(.invalidArgument, "provider \(BrokerArguments.quoted(providerID)) needs issuer, the OpenID Connect issuer URL.")
        }
        self.providerID = providerID
        issuer = providerID == "google.com" ? nil : strings["issuer"]
        self.clientID = clientID
        clientSecret = strings["clientSecret"]
    }

    /// Refuses a flow whose provider the caller names (an issuer) when the caller may not reach the network itself:
    /// the broker, a host process, must not be its way out of its sandbox.
    func checkNetwork(of identity: CallerIdentity) throws(BrokerError) {
        guard issuer != nil, !identity.sharesNetwork else { return }
        throw BrokerError(.accessDenied, "This app (\(identity.caller)) has no network permission (Flatpak's --share=network), so the broker sends "
            + "no request to a provider it names; give the app that permission, or sign in with google.com.")
    }

    /// Runs the flow: reads the provider's discovery document, opens the browser (the desktop portal where the
    /// session has one, else `xdg-open`) and waits for the provider's redirect, at most five minutes. The broker's
    /// requests connect only to `addresses`. A sandboxed `caller` is not told what the provider's server answered to
    /// the discovery (its status, its words, whether it answered at all): the broker's log says it.
    func credential(for caller: Caller, addresses: ReachableAddresses, logger: Logger) async throws(AuthError) -> OAuthCredential {
        var provider = DesktopOAuthProvider.google
        if let issuer {
            do {
                provider = try await DesktopOAuthProvider.discover(providerID: providerID, issuer: issuer, addresses: addresses)
            } catch where caller != .host {
                logger.info("A provider's discovery failed", metadata: ["caller": "\(caller)", "error": "\(error.message)"])
                throw AuthError(.invalidConfiguration, "The OpenID Connect provider \(BrokerArguments.quoted(issuer)) cannot be used for the sign-in: "
                    + "its configuration could not be fetched from a public address, or is not an OpenID Connect provider's for this "
                    + "issuer. Check the issuer; the broker's log (--verbose) says more.")
            }
        }
        var flow = DesktopOAuthFlow(provider: provider, clientID: clientID, clientSecret: clientSecret)
        flow.logger = logger
        flow.addresses = addresses
        return try await flow.getCredential()
    }
}
