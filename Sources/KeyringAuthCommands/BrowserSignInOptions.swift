import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import Logging
import SecretKeychain
import SystemSupport

/// How `sign-in`, `link` and `reauthenticate` run a provider's flow in the browser: the Firebase project's own provider (``OAuthProvider``, begun by
/// Firebase); the desktop OAuth flow (``DesktopOAuthFlow``) with Google, an OpenID Connect provider by its issuer or
/// GitHub's web flow, the client secret, when there is one, from standard input; or GitHub's device flow
/// (``GitHubDeviceFlow``), whose code the person enters in any browser.
struct BrowserSignInOptions: ParsableArguments {
    @Flag(help: "Sign in with GitHub: prints a code to enter at GitHub's address (GitHub's device flow), then waits; an OAuth app's --client-id with the device flow enabled. With --client-secret-stdin, GitHub's web flow in the browser instead.")
    var github = false

    @Option(help: ArgumentHelp(
        "Sign in in the browser with the Firebase project's own provider of this ID (microsoft.com, yahoo.com, …): Firebase begins the sign-in, no OAuth client of the app's own; the provider's registration needs the redirect http://localhost.",
        valueName: "id"))
    var provider: String?

    @Option(name: .customLong("custom-parameter"), help: ArgumentHelp(
        "With --provider: a parameter of the provider's, as key=value, repeatable (Microsoft's tenant, prompt, login_hint).", valueName: "key=value"))
    var customParameters: [String] = []

    @Option(name: .customLong("scope"), help: ArgumentHelp("With --github or --provider: a scope to ask for, repeatable (GitHub's default: read:user and user:email).", valueName: "scope"))
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

    @Option(help: ArgumentHelp("With --google, --oidc or --github: the OAuth client ID.", valueName: "id"))
    var clientID: String?

    @Flag(help: "With --google or --oidc: read the OAuth client secret from standard input (Google's desktop clients have one). With --github: GitHub's web flow in the browser, whose token request needs the OAuth app's secret, instead of the device flow.")
    var clientSecretStdin = false

    @OptionGroup var page: BrowserPageOptions

    @Option(help: ArgumentHelp(
        "Sign in with this phone number (E.164, such as +15555550100): the app is verified on a page in the browser, then the code the SMS carries is read, at a prompt or from the next line of standard input.",
        valueName: "number"))
    var phone: String?

    var port: UInt16 { page.port }
    var browserTimeout: Int { page.browserTimeout }
    var noBrowser: Bool { page.noBrowser }

    var given: Bool { google || oidc != nil || github || provider != nil || phone != nil }

    func validate() throws {
        guard [google, oidc != nil, github, provider != nil, phone != nil].filter({ $0 }).count <= 1 else {
            throw ValidationError("Give one of --google, --oidc ISSUER, --github, --provider ID and --phone NUMBER.")
        }
        if phone != nil {
            guard clientID == nil, providerID == nil, !clientSecretStdin, scopes.isEmpty, customParameters.isEmpty else {
                throw ValidationError("--phone takes no --client-id, --provider-id, --client-secret-stdin, --scope or --custom-parameter.")
            }
            return
        }
        guard github || provider != nil || scopes.isEmpty else { throw ValidationError("--scope goes with --github or --provider.") }
        guard github || (githubHost == nil && !openBrowser) else { throw ValidationError("--github-host and --open-browser go with --github.") }
        guard provider != nil || customParameters.isEmpty else { throw ValidationError("--custom-parameter goes with --provider.") }
        if let provider {
            do throws(AuthError) {
                try OAuthCredential.checkProviderID(provider)
            } catch {
                throw ValidationError("--provider: \(error.message.escapedForTerminal)")
            }
            guard clientID == nil, providerID == nil, !clientSecretStdin else {
                throw ValidationError("--provider needs no --client-id, --provider-id or --client-secret-stdin: Firebase begins the sign-in with its own registration.")
            }
            _ = try parameters()
            return
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
    }

    /// The client secret from standard input, with --client-secret-stdin.
    func readSecret() throws -> String? {
        clientSecretStdin ? try readSecretLines(["the client secret"], flag: "--client-secret-stdin")[0] : nil
    }

    /// The --custom-parameter values by key.
    func parameters() throws(ValidationError) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in customParameters {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parameters[String(parts[0])] == nil else {
                throw ValidationError("--custom-parameter takes key=value, each key once (for example tenant=contoso.onmicrosoft.com).")
            }
            parameters[String(parts[0])] = String(parts[1])
        }
        return parameters
    }

    /// Runs the flow: prints the URL (or GitHub's code and address) on standard error, opens the browser, waits, returns
    /// the credential. `auth` begins the sign-in of the project's own provider.
    func credential(secret: String?, auth: Auth, logger: Logger) async throws -> AuthCredential {
        if let phone { return try await page.phoneCredential(phone, auth: auth) }
        if github && !clientSecretStdin { return try await gitHubCredential(logger: logger) }
        if let provider { return try await projectProviderCredential(provider, auth: auth) }
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
        let opening = !noBrowser
        return try await flow.getCredential { url in announce(url, providerID: provider.providerID, opening: opening) }
    }

    /// The project's own provider, begun by Firebase: the URL on standard error, then the browser and the wait.
    private func projectProviderCredential(_ providerID: String, auth: Auth) async throws -> AuthCredential {
        let provider = OAuthProvider(providerID: providerID, auth: auth)
        provider.scopes = scopes
        provider.customParameters = try parameters()
        provider.redirectPort = port
        provider.timeout = .seconds(browserTimeout)
        provider.browser = noBrowser ? .none : .system
        let opening = !noBrowser
        return try await provider.credential(with: nil) { url in announce(url, providerID: providerID, opening: opening) }
    }

    /// Prints the URL to open on standard error, on a line of its own, to copy whole.
    private func announce(_ url: URL, providerID: String, opening: Bool) {
        announceURL(url, opening ? "signing in with \(providerID) in your browser; if none opens, open this URL:"
            : "open this URL in a browser to sign in with \(providerID):")
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
