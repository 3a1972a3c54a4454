import Foundation
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
        case linkWithBrowser(BrowserSignIn)
        case reauthenticateWithBrowser(BrowserSignIn)
        case resolveSignInWithTOTP(handle: String, factorUID: String, code: String)
        case startGitHubSignIn(clientID: String, scopes: [String]?)
        case finishGitHubSignIn(handle: String)
        case getUser
        case getIDToken(forceRefresh: Bool)
        case getIDTokenResult(forceRefresh: Bool)
        case reload
        case updateProfile(ProfileChange)
        case updatePassword(String)
        case verifyBeforeUpdateEmail(email: String, settings: ActionCodeSettings?)
        case sendEmailVerification(ActionCodeSettings?)
        case reauthenticate(AuthCredential)
        case link(AuthCredential)
        case unlink(providerID: String)
        case delete
        case sendPasswordReset(email: String, settings: ActionCodeSettings?)
        case fetchSignInMethods(email: String)
        case getPasswordPolicy
        case commitSignIn(handle: String)
        case dropSignIn(handle: String)
        case updateCurrentUser(source: BrokerArguments, uid: String)
        case verifyPasswordResetCode(String)
        case confirmPasswordReset(code: String, newPassword: String)
        case checkActionCode(String)
        case applyActionCode(String)
        case sendSignInLink(email: String, settings: ActionCodeSettings)
        case startTOTPEnrollment(accountName: String?, issuer: String?)
        case finishTOTPEnrollment(handle: String, code: String, displayName: String?)
        case unenroll(factorUID: String)
        case startPhoneVerification(phoneNumber: String, purpose: PhoneVerification.Purpose, page: Broker.PhonePage)
        case startPhoneSecondFactor(handle: String, factorUID: String, page: Broker.PhonePage)
        case confirmPhoneVerification(handle: String, code: String, Broker.PhoneConfirmation)
        case signOut
        case watch
        case unwatch
    }

    /// Whether the operation signs a user in to the scope (what `holdSignIn` holds).
    var signsIn: Bool {
        switch operation {
        case .signInAnonymously, .signInWithEmail, .createUserWithEmail, .signInWithEmailLink, .signInWithCustomToken, .signInWithCredential,
            .signInWithBrowser, .finishGitHubSignIn, .confirmPhoneVerification:
            true
        default:
            false
        }
    }

    /// A profile change: each field kept (`nil`), set, or removed (`""`).
    struct ProfileChange: Sendable {
        var displayName: String?
        var photoURL: String?
    }

    let arguments: BrokerArguments
    let operation: Operation

    /// Reads `call`'s arguments, whose types GDBus has checked against the interface.
    init(_ call: MethodCall) throws(BrokerError) {
        let parameters = call.parameters
        let app = GVariants.child(at: 0, of: parameters)
        defer { GVariants.release(app) }
        arguments = try BrokerArguments(app: app, group: GVariantValues.string(at: 1, of: parameters))
        let reader = ArgumentReader(parameters: parameters)
        let (email, password, token, code) = (BrokerArguments.maximumEmailSize, BrokerArguments.maximumPasswordSize,
                                              BrokerArguments.maximumTokenSize, BrokerArguments.maximumTokenSize)
        switch call.method {
        case "SignInAnonymously": operation = .signInAnonymously
        case "SignInWithEmail":
            operation = .signInWithEmail(email: try reader.string(2, "email", limit: email), password: try reader.string(3, "password", limit: password))
        case "CreateUserWithEmail":
            operation = .createUserWithEmail(email: try reader.string(2, "email", limit: email), password: try reader.string(3, "password", limit: password))
        case "SignInWithEmailLink":
            operation = .signInWithEmailLink(email: try reader.string(2, "email", limit: email), link: try reader.string(3, "link", limit: token))
        case "SignInWithCustomToken": operation = .signInWithCustomToken(try reader.string(2, "token", limit: token))
        case "SignInWithCredential": operation = .signInWithCredential(try reader.dictionary(2) { v throws(BrokerError) in try Self.credential(from: v) })
        case "SignInWithBrowser": operation = .signInWithBrowser(try reader.dictionary(2) { v throws(BrokerError) in try BrowserSignIn(v) })
        case "LinkWithBrowser": operation = .linkWithBrowser(try reader.dictionary(2) { v throws(BrokerError) in try BrowserSignIn(v) })
        case "ReauthenticateWithBrowser":
            operation = .reauthenticateWithBrowser(try reader.dictionary(2) { v throws(BrokerError) in try BrowserSignIn(v) })
        case "ResolveSignInWithTOTP":
            operation = .resolveSignInWithTOTP(
                handle: try reader.string(2, "handle", limit: 64), factorUID: try reader.string(3, "factorUID", limit: BrokerArguments.maximumAppValueSize),
                code: try reader.string(4, "code", limit: 16))
        case "StartGitHubSignIn":
            let github = try reader.dictionary(2) { variant throws(BrokerError) in
                try GVariants.strings(
                    of: variant, name: "github", keys: ["clientID", "scope"], limit: BrokerArguments.maximumAppValueSize,
                    shape: "a dictionary (a{sv}) of clientID and scope (space-separated)")
            }
            guard let clientID = github["clientID"], !clientID.isEmpty else {
                throw BrokerError(.invalidArgument, "github needs clientID, the GitHub OAuth app's client ID (its device flow enabled).")
            }
            let scopes = github["scope"].map { $0.split(separator: " ").map(String.init) }.flatMap { $0.isEmpty ? nil : $0 }
            operation = .startGitHubSignIn(clientID: clientID, scopes: scopes)
        case "FinishGitHubSignIn": operation = .finishGitHubSignIn(handle: try reader.string(2, "handle", limit: 64))
        case "GetUser": operation = .getUser
        case "GetIDToken": operation = .getIDToken(forceRefresh: GVariantValues.bool(at: 2, of: parameters))
        case "GetIDTokenResult": operation = .getIDTokenResult(forceRefresh: GVariantValues.bool(at: 2, of: parameters))
        case "Reload": operation = .reload
        case "UpdateProfile": operation = .updateProfile(try reader.dictionary(2) { v throws(BrokerError) in try Self.profileChange(from: v) })
        case "UpdatePassword": operation = .updatePassword(try reader.string(2, "password", limit: password))
        case "VerifyBeforeUpdateEmail":
            operation = .verifyBeforeUpdateEmail(email: try reader.string(2, "email", limit: email), settings: try reader.actionCodeSettings(3))
        case "SendEmailVerification": operation = .sendEmailVerification(try reader.actionCodeSettings(2))
        case "Reauthenticate":
            operation = .reauthenticate(try reader.dictionary(2) { v throws(BrokerError) in try Self.credential(from: v, allowingPassword: true) })
        case "Link": operation = .link(try reader.dictionary(2) { v throws(BrokerError) in try Self.credential(from: v, allowingPassword: true) })
        case "Unlink": operation = .unlink(providerID: try reader.string(2, "providerID", limit: BrokerArguments.maximumAppValueSize))
        case "Delete": operation = .delete
        case "SendPasswordReset":
            operation = .sendPasswordReset(email: try reader.string(2, "email", limit: email), settings: try reader.actionCodeSettings(3))
        case "GetPasswordPolicy": operation = .getPasswordPolicy
        case "CommitSignIn": operation = .commitSignIn(handle: try reader.string(2, "handle", limit: 64))
        case "DropSignIn": operation = .dropSignIn(handle: try reader.string(2, "handle", limit: 64))
        case "FetchSignInMethods": operation = .fetchSignInMethods(email: try reader.string(2, "email", limit: email))
        case "UpdateCurrentUser":
            let source = try reader.dictionary(2) { v throws(BrokerError) in
                try BrokerArguments(app: v, group: GVariantValues.string(at: 3, of: parameters))
            }
            operation = .updateCurrentUser(source: source, uid: try reader.string(4, "uid", limit: BrokerArguments.maximumAppValueSize))
        case "VerifyPasswordResetCode": operation = .verifyPasswordResetCode(try reader.string(2, "code", limit: code))
        case "ConfirmPasswordReset":
            operation = .confirmPasswordReset(code: try reader.string(2, "code", limit: code), newPassword: try reader.string(3, "newPassword", limit: password))
        case "CheckActionCode": operation = .checkActionCode(try reader.string(2, "code", limit: code))
        case "ApplyActionCode": operation = .applyActionCode(try reader.string(2, "code", limit: code))
        case "SendSignInLink":
            guard let settings = try reader.actionCodeSettings(3), settings.url != nil, settings.handleCodeInApp else {
                throw BrokerError(.invalidArgument, "SendSignInLink needs actionCodeSettings with url (the link's continue URL) and handleCodeInApp true.")
            }
            operation = .sendSignInLink(email: try reader.string(2, "email", limit: email), settings: settings)
        case "StartTOTPEnrollment":
            operation = .startTOTPEnrollment(
                accountName: try reader.string(2, "accountName", limit: email, allowingEmpty: true).nonEmpty,
                issuer: try reader.string(3, "issuer", limit: BrokerArguments.maximumAppValueSize, allowingEmpty: true).nonEmpty)
        case "FinishTOTPEnrollment":
            operation = .finishTOTPEnrollment(
                handle: try reader.string(2, "handle", limit: 64), code: try reader.string(3, "code", limit: 16),
                displayName: try reader.string(4, "displayName", limit: BrokerArguments.maximumAppValueSize, allowingEmpty: true).nonEmpty)
        case "StartPhoneVerification":
            let purposeName = try reader.string(3, "purpose", limit: 32)
            guard let purpose = PhoneVerification.Purpose(rawValue: purposeName) else {
                throw BrokerError(.invalidArgument, "purpose must be one of \(PhoneVerification.Purpose.names), not \(BrokerArguments.quoted(purposeName)).")
            }
            operation = .startPhoneVerification(
                phoneNumber: try reader.string(2, "phoneNumber", limit: 16), purpose: purpose, page: try reader.phonePage(4))
        case "StartPhoneSecondFactor":
            operation = .startPhoneSecondFactor(
                handle: try reader.string(2, "handle", limit: 64), factorUID: try reader.string(3, "factorUID", limit: BrokerArguments.maximumAppValueSize),
                page: try reader.phonePage(4))
        case "ConfirmPhoneVerification":
            let options = try reader.dictionary(4) { variant throws(BrokerError) in
                try GVariants.strings(
                    of: variant, name: "options", keys: ["purpose", "displayName"], limit: BrokerArguments.maximumAppValueSize,
                    shape: "a dictionary (a{sv}) of purpose and displayName")
            }
            var confirmation = Broker.PhoneConfirmation(displayName: options["displayName"]?.nonEmpty)
            if let name = options["purpose"]?.nonEmpty {
                guard let purpose = PhoneVerification.Purpose(rawValue: name) else {
                    throw BrokerError(.invalidArgument, "options' purpose must be one of \(PhoneVerification.Purpose.names), not \(BrokerArguments.quoted(name)).")
                }
                confirmation.purpose = purpose
            }
            operation = .confirmPhoneVerification(
                handle: try reader.string(2, "handle", limit: 64), code: try reader.string(3, "code", limit: 16), confirmation)
        case "Unenroll": operation = .unenroll(factorUID: try reader.string(2, "factorUID", limit: BrokerArguments.maximumAppValueSize))
        case "SignOut": operation = .signOut
        case "Watch": operation = .watch
        case "Unwatch": operation = .unwatch
        default: throw BrokerError(.invalidArgument, "The broker has no method \(BrokerArguments.quoted(call.method)).")
        }
    }

    /// Reads the arguments after `app` and `group`, checked as the broker takes strings.
    private struct ArgumentReader {
        let parameters: OpaquePointer

        func string(_ index: Int, _ name: String, limit: Int, allowingEmpty: Bool = false) throws(BrokerError) -> String {
            let value = GVariantValues.string(at: index, of: parameters)
            try BrokerArguments.checkString(value, of: name, limit: limit)
            guard allowingEmpty || !value.isEmpty else { throw BrokerError(.invalidArgument, "\(name) must not be empty.") }
            return value
        }

        func dictionary<Value>(_ index: Int, _ read: (OpaquePointer) throws(BrokerError) -> Value) throws(BrokerError) -> Value {
            let dictionary = GVariants.child(at: index, of: parameters)
            defer { GVariants.release(dictionary) }
            return try read(dictionary)
        }

        /// How a phone verification's page is shown, from an `a{sv}` of `openBrowser` (b, default true).
        func phonePage(_ index: Int) throws(BrokerError) -> Broker.PhonePage {
            let values = try dictionary(index) { variant throws(BrokerError) in
                try GVariants.values(
                    of: variant, name: "options", keys: ["openBrowser": "b"], limit: BrokerArguments.maximumAppValueSize,
                    shape: "a dictionary (a{sv}) of openBrowser (b)")
            }
            if case .bool(false)? = values["openBrowser"] { return Broker.PhonePage(opensBrowser: false) }
            return Broker.PhonePage()
        }

        /// Action-code settings from an `a{sv}`, or `nil` when it is empty.
        func actionCodeSettings(_ index: Int) throws(BrokerError) -> ActionCodeSettings? {
            let values = try dictionary(index) { variant throws(BrokerError) in
                try GVariants.values(
                    of: variant, name: "actionCodeSettings", keys: Request.actionCodeSettingsKeys, limit: BrokerArguments.maximumTokenSize,
                    shape: "a dictionary (a{sv}) of url, handleCodeInApp (b), linkDomain, iOSBundleID, androidPackageName, "
                        + "androidInstallIfNotAvailable (b), androidMinimumVersion")
            }
            guard !values.isEmpty else { return nil }
            func string(_ key: String) -> String? { if case .string(let value)? = values[key], !value.isEmpty { value } else { nil } }
            func bool(_ key: String) -> Bool { if case .bool(let value)? = values[key] { value } else { false } }
            let settings = ActionCodeSettings()
            if let url = string("url") {
                guard let parsed = URL(string: url), parsed.scheme != nil, parsed.host != nil else {
                    throw BrokerError(.invalidArgument, "actionCodeSettings's url is not a URL; give one such as https://example.com/finish.")
                }
                settings.url = parsed
            }
            settings.handleCodeInApp = bool("handleCodeInApp")
            settings.linkDomain = string("linkDomain")
            if let bundleID = string("iOSBundleID") { settings.setIOSBundleID(bundleID) }
            if let package = string("androidPackageName") {
                settings.setAndroidPackageName(
                    package, installIfNotAvailable: bool("androidInstallIfNotAvailable"), minimumVersion: string("androidMinimumVersion"))
            }
            return settings
        }
    }

    static let actionCodeSettingsKeys = [
        "url": "s", "handleCodeInApp": "b", "linkDomain": "s", "iOSBundleID": "s", "androidPackageName": "s",
        "androidInstallIfNotAvailable": "b", "androidMinimumVersion": "s",
    ]

    static func profileChange(from variant: OpaquePointer) throws(BrokerError) -> ProfileChange {
        let strings = try GVariants.strings(
            of: variant, name: "profile", keys: ["displayName", "photoURL"], limit: BrokerArguments.maximumTokenSize,
            shape: "a dictionary (a{sv}) of displayName and photoURL (\"\" removes one)")
        if let photoURL = strings["photoURL"], !photoURL.isEmpty, URL(string: photoURL)?.scheme == nil {
            throw BrokerError(.invalidArgument, "profile's photoURL is not a URL; give one such as https://example.com/me.png, or \"\" to remove it.")
        }
        return ProfileChange(displayName: strings["displayName"], photoURL: strings["photoURL"])
    }

    /// A provider's credential from `providerID` and its tokens; with `allowingPassword`, also `password` with `email`
    /// and `password` (a reauthentication or a link, not a sign-in, which `SignInWithEmail` is).
    static func credential(from variant: OpaquePointer, allowingPassword: Bool = false) throws(BrokerError) -> AuthCredential {
        let strings = try GVariants.strings(
            of: variant, name: "credential", keys: ["providerID", "idToken", "accessToken", "secret", "rawNonce", "email", "password"],
            limit: BrokerArguments.maximumTokenSize,
            shape: "a dictionary (a{sv}) of providerID, idToken, accessToken, secret, rawNonce (or email and password)"
        ).filter { !$0.value.isEmpty }
        guard let providerID = strings["providerID"] else {
            throw BrokerError(.invalidArgument, "credential needs providerID, for example google.com.")
        }
        if providerID == "password" {
            guard allowingPassword else {
                throw BrokerError(.invalidArgument, "A password is signed in with SignInWithEmail, not as a credential.")
            }
            guard let email = strings["email"], let password = strings["password"] else {
                throw BrokerError(.invalidArgument, "A password credential needs email and password.")
            }
            return EmailAuthProvider.credential(withEmail: email, password: password)
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

extension String {
    /// `nil` for the empty string: a D-Bus argument's way of saying "none".
    var nonEmpty: String? { isEmpty ? nil : self }
}
