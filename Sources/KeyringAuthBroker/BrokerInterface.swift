/// The broker's D-Bus interface: its names and its introspection XML, which `scripts/install` installs
/// as `share/dbus-1/interfaces/io.github.keyringauth.Broker1.xml` (`keyring-auth-broker --print-interface`).
enum BrokerInterface {
    /// The well-known bus name, the interface's name, and the prefix of its errors' names.
    static let name = "io.github.keyringauth.Broker1"
    /// The one object.
    static let objectPath = "/io/github/keyringauth/Broker1"
    /// The item-level interface of the same object: KeyringAuth's own items of the scopes the caller may use.
    static let keychainName = "io.github.keyringauth.Keychain1"

    /// The methods of `io.github.keyringauth.Broker1`, in the order the XML lists them. Every method takes `app` and
    /// `group` first (the tables below list what follows them).
    static let methods: [Method] = [
        Method("SignInAnonymously", replies: [("user", "a{sv}")]),
        Method("SignInWithEmail", [("email", "s"), ("password", "s")], replies: [("user", "a{sv}")]),
        Method("CreateUserWithEmail", [("email", "s"), ("password", "s")], replies: [("user", "a{sv}")]),
        Method("SignInWithEmailLink", [("email", "s"), ("link", "s")], replies: [("user", "a{sv}")]),
        Method("SignInWithCustomToken", [("token", "s")], replies: [("user", "a{sv}")]),
        Method("SignInWithCredential", [("credential", "a{sv}")], replies: [("user", "a{sv}")], note: """
            credential: providerID (google.com, facebook.com, github.com, twitter.com, apple.com, or an
                 oidc./saml. ID), and idToken and/or accessToken, secret (twitter.com), rawNonce.
            """),
        Method("SignInWithBrowser", [("provider", "a{sv}")], replies: [("user", "a{sv}")], note: """
            A sign-in in the user's browser, run by the broker (at most five minutes: give the call a timeout that
                 long). provider: providerID alone for the Firebase project's own provider (microsoft.com, yahoo.com,
                 ...; Firebase begins it), with scope (space-separated) and customParameters (a{ss}) if wanted; or the
                 app's own OAuth client: providerID (google.com, github.com for GitHub's web flow, or the oidc. ID set
                 up in Firebase), clientID, issuer (for oidc.), clientSecret (where the client has one).
            """),
        Method("ResolveSignInWithTOTP", [("handle", "s"), ("factorUID", "s"), ("code", "s")], replies: [("user", "a{sv}")], note: """
            Finishes a sign-in that failed with Error.SecondFactorRequired, with the code of the authenticator app
                 of the factor factorUID. handle: from that error, on this connection only, for five minutes.
            """),
        Method("CommitSignIn", [("handle", "s")], replies: [("user", "a{sv}")], note: """
            A sign-in made with holdSignIn "true" in app (any of the sign-ins above, and its second factor's) signs
                 the user in on the side and answers it with heldSignIn, a handle (this connection only, five
                 minutes): nothing is stored, and no app of the group sees it, until CommitSignIn stores it as
                 updateCurrentUser does; DropSignIn forgets it. For an app that runs checks before its sign-in takes
                 effect (Firebase's beforeAuthStateChanged).
            """),
        Method("DropSignIn", [("handle", "s")]),
        Method("StartGitHubSignIn", [("github", "a{sv}")], replies: [("handle", "s"), ("userCode", "s"), ("verificationURI", "s"), ("expiresIn", "x")], note: """
            GitHub's device flow: github is clientID (the GitHub OAuth app's, its device flow enabled) and scope
                 (space-separated; default read:user user:email). Show userCode and verificationURI to the person;
                 FinishGitHubSignIn with handle (this connection only, for expiresIn seconds) waits until they have
                 entered it, then signs in (give that call a timeout as long).
            """),
        Method("FinishGitHubSignIn", [("handle", "s")], replies: [("user", "a{sv}")]),
        Method("GetUser", replies: [("user", "a{sv}")]),
        Method("GetIDToken", [("forceRefresh", "b")], replies: [("token", "s")]),
        Method("GetIDTokenResult", [("forceRefresh", "b")], replies: [("result", "a{sv}")], note: """
            result: token, claims (JSON), authDate, issuedAtDate, expirationDate (x, Unix seconds), signInProvider,
                 signInSecondFactor (when there was one).
            """),
        Method("UpdateCurrentUser", [("userApp", "a{sv}"), ("userGroup", "s"), ("uid", "s")], replies: [("user", "a{sv}")], note: """
            Firebase's updateCurrentUser: the user signed in to (userApp, userGroup), another app or scope the
                 caller may use too, whose uid must still be uid, is stored as (app, group)'s user, for every app of
                 that group; the other keeps it. Its tenant must be this app's.
            """),
        Method("Reload", replies: [("user", "a{sv}")]),
        Method("UpdateProfile", [("profile", "a{sv}")], replies: [("user", "a{sv}")], note: """
            profile: displayName, photoURL; a key left out is kept, "" removes it.
            """),
        Method("UpdatePassword", [("password", "s")]),
        Method("VerifyBeforeUpdateEmail", [("email", "s"), ("actionCodeSettings", "a{sv}")], note: """
            actionCodeSettings (here and below; may be empty where not required): url, handleCodeInApp (b),
                 linkDomain, iOSBundleID, androidPackageName, androidInstallIfNotAvailable (b), androidMinimumVersion.
            """),
        Method("SendEmailVerification", [("actionCodeSettings", "a{sv}")]),
        Method("Reauthenticate", [("credential", "a{sv}")], replies: [("user", "a{sv}")], note: """
            credential: as SignInWithCredential's, or providerID password with email and password.
            """),
        Method("Link", [("credential", "a{sv}")], replies: [("user", "a{sv}")]),
        Method("LinkWithBrowser", [("provider", "a{sv}")], replies: [("user", "a{sv}")], note: """
            Links the signed-in user to a provider in the user's browser, run by the broker as SignInWithBrowser
                 (provider as there; Firebase's linkWithPopup).
            """),
        Method("ReauthenticateWithBrowser", [("provider", "a{sv}")], replies: [("user", "a{sv}")], note: """
            Reauthenticates the signed-in user in the user's browser, run by the broker as SignInWithBrowser
                 (provider as there; Firebase's reauthenticateWithPopup); a second factor is met as a sign-in's.
            """),
        Method("Unlink", [("providerID", "s")], replies: [("user", "a{sv}")]),
        Method("Delete"),
        Method("SendPasswordReset", [("email", "s"), ("actionCodeSettings", "a{sv}")]),
        Method("GetPasswordPolicy", replies: [("policy", "a{sv}")], note: """
            The password policy of the project or the app's tenant, for checking a password before sending it
                 (Firebase's validatePassword): minPasswordLength, maxPasswordLength, schemaVersion (x),
                 containsLowercaseCharacter, containsUppercaseCharacter, containsNumericCharacter,
                 containsNonAlphanumericCharacter, forceUpgradeOnSignin (b), allowedNonAlphanumericCharacters (s, the
                 characters), enforcementState (OFF, ENFORCE), each present when Firebase gave it. An emulator, which
                 serves no policy, is answered a project's without one: enforcementState OFF, schemaVersion 1.
            """),
        Method("FetchSignInMethods", [("email", "s")], replies: [("methods", "as")], note: """
            How the account of email signs in (Firebase's fetchSignInMethodsForEmail): password, emailLink, or a
                 provider's ID; none for an address of no account, and none at all where the project protects
                 against email enumeration (Firebase's default for new projects).
            """),
        Method("VerifyPasswordResetCode", [("code", "s")], replies: [("email", "s")]),
        Method("ConfirmPasswordReset", [("code", "s"), ("newPassword", "s")]),
        Method("CheckActionCode", [("code", "s")], replies: [("info", "a{sv}")], note: """
            info: operation (PASSWORD_RESET, VERIFY_EMAIL, RECOVER_EMAIL, EMAIL_SIGNIN, VERIFY_AND_CHANGE_EMAIL,
                 REVERT_SECOND_FACTOR_ADDITION), email, previousEmail.
            """),
        Method("ApplyActionCode", [("code", "s")]),
        Method("SendSignInLink", [("email", "s"), ("actionCodeSettings", "a{sv}")]),
        Method("StartTOTPEnrollment", [("accountName", "s"), ("issuer", "s")], replies: [("handle", "s"), ("uri", "s")], note: """
            An authenticator app's secret for the signed-in user: uri is its otpauth:// URI (accountName "" for the
                 user's email, issuer "" for the project); handle, on this connection only, for five minutes, finishes it.
            """),
        Method("FinishTOTPEnrollment", [("handle", "s"), ("code", "s"), ("displayName", "s")], replies: [("user", "a{sv}")]),
        Method("Unenroll", [("factorUID", "s")], replies: [("user", "a{sv}")]),
        Method("StartPhoneVerification", [("phoneNumber", "s"), ("purpose", "s"), ("options", "a{sv}")], replies: [("handle", "s")], note: """
            Has Firebase send an SMS code to phoneNumber (E.164, such as +15555550100), after the person verifies the app
                 (reCAPTCHA) on a page the broker serves on this machine and opens in their browser (none for an emulator);
                 the page's address is sent first to this connection as PhoneVerificationPage. At most five minutes: give
                 the call a timeout that long. purpose: sign-in, link, reauthenticate, update (the user's number) or enroll
                 (an SMS second factor); options: openBrowser (b, default true; false: the app shows the page's address).
                 handle, on this connection only, for five minutes, goes to ConfirmPhoneVerification. Bounds per app: one
                 send at a time to a number, the next to it no sooner than 30 s after the last, at most 10 in an hour
                 (Error.Backend ERROR_TOO_MANY_REQUESTS).
            """),
        Method("StartPhoneSecondFactor", [("handle", "s"), ("factorUID", "s"), ("options", "a{sv}")], replies: [("handle", "s")], note: """
            StartPhoneVerification for the SMS factor factorUID of a sign-in that failed with Error.SecondFactorRequired
                 (handle: that error's); the handle answered goes to ConfirmPhoneVerification, which finishes the sign-in.
            """),
        Method("ConfirmPhoneVerification", [("handle", "s"), ("code", "s"), ("options", "a{sv}")], replies: [("user", "a{sv}")], note: """
            Uses the SMS code of a verification as its purpose says. options: displayName (an enrolled factor's), purpose
                 (sign-in, link, reauthenticate or update: another of these four than the start's, as a credential of the
                 code may be used). A wrong code may be tried again on the same handle, five wrong codes in all; then the
                 verification ends.
            """),
        Method("SignOut"),
        Method("Watch"),
        Method("Unwatch"),
    ]

    /// One method: its name, the arguments after `app` and `group`, its replies, and a note for the XML.
    struct Method: Sendable {
        let name: String
        let arguments: [(name: String, type: String)]
        let replies: [(name: String, type: String)]
        let note: String?

        init(_ name: String, _ arguments: [(String, String)] = [], replies: [(String, String)] = [], note: String? = nil) {
            self.name = name
            self.arguments = arguments.map { (name: $0.0, type: $0.1) }
            self.replies = replies.map { (name: $0.0, type: $0.1) }
            self.note = note
        }

        var xml: String {
            let comment = note.map { "    <!-- \($0.trimmingCharacters(in: .whitespacesAndNewlines)) -->\n" } ?? ""
            let ins = ([("app", "a{sv}"), ("group", "s")] + arguments.map { ($0.name, $0.type) })
                .map { "      <arg name=\"\($0.0)\" type=\"\($0.1)\" direction=\"in\"/>\n" }.joined()
            let outs = replies.map { "      <arg name=\"\($0.name)\" type=\"\($0.type)\" direction=\"out\"/>\n" }.joined()
            return comment + "    <method name=\"\(name)\">\n" + ins + outs + "    </method>\n"
        }
    }

    static let introspectionXML = documentHead + "<node>\n  <interface name=\"\(name)\">\n" + methods.map(\.xml).joined() + userChanged
        + keychainInterface

    private static let documentHead = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <!--
          io.github.keyringauth.Broker1: Firebase Authentication's shared sign-in for any app of the session,
          on the Secret Service items KeyringAuth's Swift apps use.

          app:   a{sv} of strings: apiKey, appID, projectID (required), tenantID, appName, emulatorHost
                 (optional); and for the call only, languageCode (X-Firebase-Locale: the language of the
                 emails the call has Firebase send, such as fr or pt-BR), holdSignIn ("true": a sign-in's
                 user is held until CommitSignIn) and appCheckToken (X-Firebase-AppCheck: the app's own App
                 Check token, for a project that enforces App Check on Authentication; never kept or shown),
                 or, from a host app only, appCheckDebugToken (an App Check debug secret the broker exchanges,
                 the token kept in the keyring for the app).
          group: an access group such as TEAMID.com.example.shared, or "" for the calling app's private scope.
          user:  a{sv}: uid, isAnonymous (b), emailVerified (b), providerID, and when not empty email,
                 displayName, phoneNumber, photoURL, tenantID, providers (s, comma-separated provider IDs),
                 secondFactors (aa{sv}: uid, displayName, factorID, enrollmentDate (x, Unix seconds), phoneNumber),
                 creationDate and lastSignInDate (x, Unix seconds), refreshToken and idToken (the group's
                 own, which a caller allowed the group may read from its item anyway; idToken as stored,
                 which GetIDToken refreshes when it expires, and which each refresh changes).
                 An empty dictionary when nobody is signed in.
          Errors: io.github.keyringauth.Broker1.Error.AccessDenied, .InvalidArgument, .NotSignedIn,
                  .KeychainUnavailable, .Backend (the message starts with Firebase's error name, for
                  example ERROR_WRONG_PASSWORD: ...), .Failed, and .SecondFactorRequired (a sign-in of an
                  account with a second factor; the error's body is (s message, s handle, aa{sv} factors),
                  each factor uid, displayName, factorID, enrollmentDate (x); the message names the handle).
        -->
        """ + "\n"

    private static let userChanged = """
            <!-- Sent to each client that watches (app, group), and to no one else, when the signed-in user
                 or what the user dictionary holds changes (a token refresh among them), whoever changed it. -->
            <signal name="UserChanged">
              <arg name="app" type="a{sv}"/>
              <arg name="group" type="s"/>
              <arg name="user" type="a{sv}"/>
            </signal>
            <!-- Sent to the connection that started a phone verification, and to no one else, with the address of its
                 verification page before the browser opens it: an app may show it (openBrowser false, or no browser). -->
            <signal name="PhoneVerificationPage">
              <arg name="app" type="a{sv}"/>
              <arg name="group" type="s"/>
              <arg name="url" type="s"/>
            </signal>
          </interface>

        """

    private static let keychainInterface = """
          <!--
            io.github.keyringauth.Keychain1: the items KeyringAuth's own Auth keeps, one item at a time, for a
            sandboxed Swift app whose Auth cannot reach the Secret Service (its SecretKeychain.BrokerKeychainStore).

            group:   an access group, or "" for the calling app's private scope (for a sandboxed app, the items the
                     broker keeps for its verified app ID; the same the Broker1 calls of that app use).
            service, account: a key of Auth's: in a group, account firebase_auth_firebase_user; in the private
                     scope, service firebase_auth_... and account firebase_auth_1_... . Any other key is refused.
            Every call checks the caller's group first, as Broker1's calls do. Secrets up to 1 MiB.
            scope of List: "private", "group" (the group named) or "all" (the private scope and every group the
                     caller may use). items: (group, service, account, label, created, modified, size).
            Errors: as Broker1's; KeychainUnavailable's message starts with the keychain's error code (locked: ...).
          -->
          <interface name="io.github.keyringauth.Keychain1">
            <method name="Lookup">
              <arg name="group" type="s" direction="in"/>
              <arg name="service" type="s" direction="in"/>
              <arg name="account" type="s" direction="in"/>
              <arg name="found" type="b" direction="out"/>
              <arg name="secret" type="ay" direction="out"/>
            </method>
            <method name="Store">
              <arg name="group" type="s" direction="in"/>
              <arg name="service" type="s" direction="in"/>
              <arg name="account" type="s" direction="in"/>
              <arg name="label" type="s" direction="in"/>
              <arg name="secret" type="ay" direction="in"/>
            </method>
            <method name="Remove">
              <arg name="group" type="s" direction="in"/>
              <arg name="service" type="s" direction="in"/>
              <arg name="account" type="s" direction="in"/>
              <arg name="removed" type="b" direction="out"/>
            </method>
            <method name="List">
              <arg name="scope" type="s" direction="in"/>
              <arg name="group" type="s" direction="in"/>
              <arg name="items" type="a(ssssxxu)" direction="out"/>
            </method>
            <method name="RemoveAll">
              <arg name="group" type="s" direction="in"/>
              <arg name="removed" type="u" direction="out"/>
            </method>
            <!-- Follow sends ItemChanged to this client, and to no one else, for each change of the scope's items,
                 whoever made it, until Unfollow or until the client leaves the bus. change: stored or removed. -->
            <method name="Follow">
              <arg name="group" type="s" direction="in"/>
            </method>
            <method name="Unfollow">
              <arg name="group" type="s" direction="in"/>
            </method>
            <signal name="ItemChanged">
              <arg name="group" type="s"/>
              <arg name="service" type="s"/>
              <arg name="account" type="s"/>
              <arg name="change" type="s"/>
            </signal>
          </interface>
        </node>

        """
}
