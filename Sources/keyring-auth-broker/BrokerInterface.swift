/// The broker's D-Bus interface: its names and its introspection XML, which `scripts/install` installs
/// as `share/dbus-1/interfaces/io.github.keyringauth.Broker1.xml` (`keyring-auth-broker --print-interface`).
enum BrokerInterface {
    /// The well-known bus name, the interface's name, and the prefix of its errors' names.
    static let name = "io.github.keyringauth.Broker1"
    /// The one object.
    static let objectPath = "/io/github/keyringauth/Broker1"
    /// The item-level interface of the same object: KeyringAuth's own items of the scopes the caller may use.
    static let keychainName = "io.github.keyringauth.Keychain1"

    static let introspectionXML = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <!--
          io.github.keyringauth.Broker1: Firebase Authentication's shared sign-in for any app of the session,
          on the Secret Service items KeyringAuth's Swift apps use.

          app:   a{sv} of strings: apiKey, appID, projectID (required), tenantID, appName (optional).
          group: an access group such as TEAMID.com.example.shared, or "" for the calling app's private scope.
          user:  a{sv}: uid, isAnonymous (b), emailVerified (b), providerID, and when not empty email,
                 displayName, phoneNumber, photoURL, tenantID, providers (s, comma-separated provider IDs).
                 An empty dictionary when nobody is signed in. Never a token.
          Errors: io.github.keyringauth.Broker1.Error.AccessDenied, .InvalidArgument, .NotSignedIn,
                  .KeychainUnavailable, .Backend (the message starts with Firebase's error name, for
                  example ERROR_WRONG_PASSWORD: ...), .Failed.
        -->
        <node>
          <interface name="io.github.keyringauth.Broker1">
            <method name="SignInAnonymously">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
              <arg name="user" type="a{sv}" direction="out"/>
            </method>
            <method name="SignInWithEmail">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
              <arg name="email" type="s" direction="in"/>
              <arg name="password" type="s" direction="in"/>
              <arg name="user" type="a{sv}" direction="out"/>
            </method>
            <method name="CreateUserWithEmail">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
              <arg name="email" type="s" direction="in"/>
              <arg name="password" type="s" direction="in"/>
              <arg name="user" type="a{sv}" direction="out"/>
            </method>
            <method name="SignInWithEmailLink">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
              <arg name="email" type="s" direction="in"/>
              <arg name="link" type="s" direction="in"/>
              <arg name="user" type="a{sv}" direction="out"/>
            </method>
            <method name="SignInWithCustomToken">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
              <arg name="token" type="s" direction="in"/>
              <arg name="user" type="a{sv}" direction="out"/>
            </method>
            <!-- credential: providerID (google.com, facebook.com, github.com, twitter.com, apple.com, or an
                 oidc./saml. ID), and idToken and/or accessToken, secret (twitter.com), rawNonce. -->
            <method name="SignInWithCredential">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
              <arg name="credential" type="a{sv}" direction="in"/>
              <arg name="user" type="a{sv}" direction="out"/>
            </method>
            <!-- The desktop OAuth flow in the user's browser, run by the broker (at most five minutes: give the call
                 a timeout that long). provider: providerID (google.com, or the oidc. ID set up in Firebase), clientID
                 (the app's desktop OAuth client), issuer (for oidc.), clientSecret (where the client has one). -->
            <method name="SignInWithBrowser">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
              <arg name="provider" type="a{sv}" direction="in"/>
              <arg name="user" type="a{sv}" direction="out"/>
            </method>
            <method name="GetUser">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
              <arg name="user" type="a{sv}" direction="out"/>
            </method>
            <method name="GetIDToken">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
              <arg name="forceRefresh" type="b" direction="in"/>
              <arg name="token" type="s" direction="out"/>
            </method>
            <method name="SignOut">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
            </method>
            <method name="Watch">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
            </method>
            <method name="Unwatch">
              <arg name="app" type="a{sv}" direction="in"/>
              <arg name="group" type="s" direction="in"/>
            </method>
            <!-- Sent to each client that watches (app, group), and to no one else, when the signed-in user
                 or what the user dictionary holds changes, whoever changed it. -->
            <signal name="UserChanged">
              <arg name="app" type="a{sv}"/>
              <arg name="group" type="s"/>
              <arg name="user" type="a{sv}"/>
            </signal>
          </interface>
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
