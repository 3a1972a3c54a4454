// The "Desktop sign-in in the browser" article's blocks, as they are written there (a test checks that they appear in
// this file): `signInWithGoogle`, `signInWithMicrosoft` and `signInWithGitHub` below. Its users live in memory, on the
// bundled emulator: it needs no keyring.
//
//   GOOGLE_CLIENT_ID=….apps.googleusercontent.com GOOGLE_CLIENT_SECRET=… swift run desktop-sign-in-example
//   GITHUB_CLIENT_ID=Iv1.… swift run desktop-sign-in-example     (GitHub's device flow: enter the code it prints)
//   MICROSOFT=1 swift run desktop-sign-in-example     (your browser opens the emulator's page for microsoft.com)
//
// signs in with Google for real: your browser opens Google's page (a "Desktop app" OAuth client of a Google Cloud
// project), and the emulator accepts the ID token Google gives. Without GOOGLE_CLIENT_ID (as CI runs it) the same
// calls run against a stand-in for Google and for the browser, from the package's tests (FakeOAuthProvider).
import Foundation
import KeyringAuth
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain

// Not in the article: an app on the emulator, its users in memory.
let emulator = AuthEmulator(configuration: .init(port: 0))
let address = try await emulator.start()
let options = AuthAppOptions(apiKey: "AIzaSyExample", appID: "1:1234567890:linux:abcdef", projectID: "demo-keyring-auth")
Auth.configure(AuthConfiguration(options: options, store: InMemoryStore()))
Auth.auth().useEmulator(withHost: address.host, port: address.port)

/// The article's block, with Google.
func signInWithGoogle(googleClientID: String, googleClientSecret: String) async throws {
    // Google's installed-app flow: the user's browser, a redirect to 127.0.0.1, PKCE, state and nonce.
    let flow = DesktopOAuthFlow(provider: .google, clientID: googleClientID, clientSecret: googleClientSecret)
    let credential = try await flow.getCredential { url in
        print("Sign in with Google in your browser; if none opened, open \(url)")
    }
    let user = try await Auth.auth().signIn(with: credential).user  // saved and shared like any sign-in
    print("signed in:", user.uid, user.email ?? "no email")
}

/// The article's block, with the project's own Microsoft provider.
func signInWithMicrosoft() async throws {
    // Firebase's own microsoft.com provider: Firebase begins the sign-in, the user's browser finishes it.
    let provider = OAuthProvider(providerID: "microsoft.com")
    provider.customParameters = ["prompt": "select_account", "tenant": "organizations"]
    let user = try await Auth.auth().signIn(with: provider, uiDelegate: nil).user
    print("signed in with Microsoft:", user.uid, user.email ?? "no email")
}

/// Not in the article: the same calls, with a stand-in for the person at the emulator's provider page.
func signInWithMicrosoftStandIn() async throws {
    let provider = OAuthProvider(providerID: "microsoft.com")
    provider.customParameters = ["prompt": "select_account", "tenant": "organizations"]
    provider.browser = .custom { url in
        Thread { _ = try? EmulatorIdPPage.complete(url, .signIn(email: "ada@contoso.example", displayName: "Ada")) }.start()
        return nil
    }
    let user = try await Auth.auth().signIn(with: provider, uiDelegate: nil).user
    print("signed in with Microsoft:", user.email ?? "no email", user.providerData.map(\.providerID))
}

/// The article's block, with GitHub's device flow.
func signInWithGitHub(gitHubClientID: String) async throws {
    let flow = GitHubDeviceFlow(clientID: gitHubClientID)        // an OAuth app with "Enable Device Flow" ticked
    let authorization = try await flow.start()
    print("Enter \(authorization.userCode) at \(authorization.verificationURI)")
    let credential = try await flow.credential(for: authorization)  // waits; cancel the task to stop
    let user = try await Auth.auth().signIn(with: credential).user
    print("signed in with GitHub:", user.uid, user.email ?? "no email")
}

/// Not in the article: GitHub's device flow against a stand-in for GitHub, where the person enters the code at once.
func signInWithGitHubStandIn() async throws {
    let github = try FakeGitHub(user: ["sub": "octocat", "email": "octocat@example.com"], answers: [.pending, .token])
    defer { github.stop() }
    let flow = GitHubDeviceFlow(clientID: "Iv1.example", host: github.base)
    let authorization = try await flow.start()
    print("Enter \(authorization.userCode) at \(authorization.verificationURI.path)")
    let user = try await Auth.auth().signIn(with: try await flow.credential(for: authorization)).user
    print("signed in with GitHub:", user.email ?? "no email", user.providerData.map(\.providerID))
}

/// Not in the article: the same calls with a stand-in for Google, and for the browser (which follows the
/// stand-in's redirect back to the flow and prints the page it is left on).
func signInWithStandIn() async throws {
    let google = try FakeOAuthProvider(user: ["sub": "google-grace", "email": "grace@example.com", "name": "Grace Hopper"])
    defer { google.stop() }
    var flow = DesktopOAuthFlow(provider: google.provider("google.com"), clientID: google.clientID, clientSecret: google.clientSecret)
    let (pages, browserLeftOn) = AsyncStream<String>.makeStream()
    flow.browser = .custom { url in
        Thread { browserLeftOn.yield((try? FakeOAuthProvider.Browser.signIn(url).body) ?? "no page") }.start()
        return nil
    }
    let credential = try await flow.getCredential { url in
        print("Sign in with Google in your browser; if none opened, open \(url.scheme ?? "?")://\(url.host ?? "?")…")
    }
    let user = try await Auth.auth().signIn(with: credential).user
    print("signed in:", user.uid, user.email ?? "no email", user.providerData.map(\.providerID))
    for await page in pages {
        print("the browser shows:", page.contains("You can close this tab") ? "you can close this tab" : page)
        break
    }
}

let environment = ProcessInfo.processInfo.environment
if let clientID = environment["GOOGLE_CLIENT_ID"], !clientID.isEmpty {
    try await signInWithGoogle(googleClientID: clientID, googleClientSecret: environment["GOOGLE_CLIENT_SECRET"] ?? "")
} else if let clientID = environment["GITHUB_CLIENT_ID"], !clientID.isEmpty {
    try await signInWithGitHub(gitHubClientID: clientID)
} else if environment["MICROSOFT"] == "1" {
    try await signInWithMicrosoft()
} else {
    try await signInWithStandIn()
    try await signInWithMicrosoftStandIn()
    try await signInWithGitHubStandIn()
}
await emulator.stop()
