import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import Logging
import SecretKeychain
import SystemSupport

/// How `sign-in` runs a provider's flow in the browser: the desktop OAuth flow (``DesktopOAuthFlow``) with Google or an
/// OpenID Connect provider by its issuer, the client secret, when there is one, from standard input; or GitHub's
/// device flow (``GitHubDeviceFlow``), whose code the person enters in any browser.
struct BrowserSignInOptions: ParsableArguments {
    @Flag(help: "Sign in with GitHub: prints a code to enter at GitHub's address (GitHub's device flow), then waits; an OAuth app's --client-id with the device flow enabled. With --client-secret-stdin, GitHub's web flow in the browser instead.")
    var github = false

    @Option(name: .customLong("scope"), help: ArgumentHelp("With --github: a scope to ask for, repeatable (default: read:user and user:email).", valueName: "scope"))
    var scopes: [String] = []

    @Option(help: ArgumentHelp("With --github: a GitHub Enterprise Server's address instead of https://github.com.", valueName: "url"))
    var githubHost: String?

    @Flag(help: "With --github: also open GitHub's address in the browser.")
    var openBrowser = false

    @Flag(help: "Sign in with Google in the browser (a desktop OAuth client's --client-id).")
    var google = false

    @Option(help: ArgumentHelp(
        "Sign in in the browser with the OpenID Connect provider of this issuer (its /.well-known/openid-configuration).",
        valueName: "issuer"))
    var oidc: String?

    @Option(help: ArgumentHelp("With --oidc: the Firebase provider ID set up for it, for example oidc.example.", valueName: "id"))
    var providerID: String?

    @Option(help: ArgumentHelp("With --google or --oidc: the OAuth client ID.", valueName: "id"))
    var clientID: String?

    @Flag(help: "With --google or --oidc: read the OAuth client secret from standard input (Google's desktop clients have one).")
    var clientSecretStdin = false

    @Option(help: ArgumentHelp("With --google or --oidc: the loopback port for the redirect (default: a free one).", valueName: "port"))
    var port: UInt16 = 0

    @Option(help: ArgumentHelp("With --google or --oidc: how long to wait for the browser, in seconds.", valueName: "seconds"))
    var browserTimeout: Int = 300

    @Flag(help: "With --google or --oidc: only print the URL to open; do not start a browser.")
    var noBrowser = false

    var given: Bool { google || oidc != nil || github }

    func validate() throws {
        guard [google, oidc != nil, github].filter({ $0 }).count <= 1 else { throw ValidationError("Give one of --google, --oidc ISSUER and --github.") }
        guard github || (scopes.isEmpty && githubHost == nil && !openBrowser) else {
            throw ValidationError("--scope, --github-host and --open-browser go with --github.")
        }
        if github {
            guard clientID?.isEmpty == false else { throw ValidationError("--github needs --client-id, the GitHub OAuth app's client ID.") }
            guard providerID == nil else { throw ValidationError("--provider-id goes with --oidc; GitHub's is github.com.") }
            guard clientSecretStdin || (port == 0 && !noBrowser) else {
                throw ValidationError("--port and --no-browser go with GitHub's web flow, which --client-secret-stdin chooses.")
            }
            if let githubHost {
                guard let url = URL(string: githubHost), ["https", "http"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                    throw ValidationError("--github-host takes an https address, such as https://github.example.com.")
                }
            }
            return
        }
        guard given || (clientID == nil && providerID == nil && !clientSecretStdin && port == 0 && !noBrowser) else {
            throw ValidationError("--client-id, --provider-id, --client-secret-stdin, --port and --no-browser go with --google or --oidc ISSUER.")
        }
        guard !given || clientID?.isEmpty == false else { throw ValidationError("--google and --oidc need --client-id ID.") }
        guard oidc == nil || providerID?.isEmpty == false else {
            throw ValidationError("--oidc needs --provider-id, the provider ID set up in Firebase (oidc.<name>).")
        }
        guard !google || providerID == nil else { throw ValidationError("--provider-id goes with --oidc; Google's is google.com.") }
        if oidc != nil, let providerID {
            // Checked before the discovery and the browser, not after the round trip.
            do throws(AuthError) {
                try OAuthCredential.checkProviderID(providerID)
            } catch {
                throw ValidationError("--provider-id: \(error.message.escapedForTerminal)")
            }
        }
        guard (1...86_400).contains(browserTimeout) else { throw ValidationError("--browser-timeout takes 1 to 86400 seconds.") }
    }

    /// The client secret from standard input, with --client-secret-stdin.
    func readSecret() throws -> String? {
        clientSecretStdin ? try readSecretLines(["the client secret"], flag: "--client-secret-stdin")[0] : nil
    }

    /// Runs the flow: prints the URL (or GitHub's code and address) on standard error, opens the browser, waits, returns
    /// the credential.
    func credential(secret: String?, logger: Logger) async throws(AuthError) -> AuthCredential {
        if github && !clientSecretStdin { return try await gitHubCredential(logger: logger) }
        let provider: DesktopOAuthProvider
        if let oidc, let providerID {
            provider = try await DesktopOAuthProvider.discover(providerID: providerID, issuer: oidc)
        } else {
            provider = github ? githubHost.flatMap(URL.init(string:)).map(DesktopOAuthProvider.github(host:)) ?? .github : .google
        }
        var flow = DesktopOAuthFlow(provider: provider, clientID: clientID ?? "", clientSecret: secret)
        flow.port = port
        flow.timeout = .seconds(browserTimeout)
        flow.browser = noBrowser ? .none : .system
        flow.logger = logger
        let noBrowser = noBrowser
        return try await flow.getCredential { url in
            printError(
                noBrowser
                    ? "open this URL in a browser to sign in with \(provider.providerID):"
                    : "signing in with \(provider.providerID) in your browser; if none opens, open this URL:")
            // On a line of its own, to copy whole.
            FileHandle.standardError.write(Data((url.absoluteString.escapedForTerminal + "\n").utf8))
        }
    }

    /// GitHub's device flow: the code and the address on standard error, the address opened when asked, then the wait.
    private func gitHubCredential(logger: Logger) async throws(AuthError) -> AuthCredential {
        var flow = GitHubDeviceFlow(clientID: clientID ?? "", host: githubHost.flatMap(URL.init(string:)) ?? URL(string: "https://github.com")!)
        if !scopes.isEmpty { flow.scopes = scopes }
        flow.logger = logger
        let authorization = try await flow.start()
        let minutes = max(1, Int((authorization.expirationDate.timeIntervalSinceNow / 60).rounded()))
        printError("to sign in with GitHub, enter the code \(authorization.userCode.escapedForTerminal) at this address within \(minutes) minutes:")
        FileHandle.standardError.write(Data((authorization.verificationURI.absoluteString.escapedForTerminal + "\n").utf8))
        if openBrowser, let failure = await DesktopBrowser.system.open(authorization.verificationURI) {
            printError("the browser was not opened (\(failure.escapedForTerminal)); open the address by hand")
        }
        return try await flow.credential(for: authorization)
    }
}
