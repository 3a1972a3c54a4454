import Foundation
import KeyringAuth
import Logging
import SystemSupport

/// The desktop OAuth flow a client asks the broker to run in the user's browser: Google, or an OpenID Connect
/// provider by its issuer, with the app's desktop OAuth client.
struct BrowserSignIn: Sendable {
    var providerID: String
    var issuer: String?
    /// The app's own OAuth client; `nil`: the Firebase project's own provider, begun by Firebase (`createAuthUri`).
    var clientID: String?
    var clientSecret: String?
    /// With the project's own provider: more scopes, and the provider's custom parameters.
    var scopes: [String] = []
    var customParameters: [String: String] = [:]

    private static let keys = ["providerID": "s", "issuer": "s", "clientID": "s", "clientSecret": "s", "scope": "s", "customParameters": "a{ss}"]

    init(_ variant: OpaquePointer) throws(BrokerError) {
        let values = try GVariants.values(
            of: variant, name: "provider", keys: Self.keys, limit: BrokerArguments.maximumAppValueSize * 4,
            shape: "a dictionary (a{sv}) of providerID and, for the app's own OAuth client, clientID, and issuer and clientSecret where needed"
        )
        let strings = values.compactMapValues { if case .string(let string) = $0, !string.isEmpty { string } else { nil } }
        guard let providerID = strings["providerID"] else {
            throw BrokerError(.invalidArgument, "provider needs providerID: the Firebase project's provider (microsoft.com, yahoo.com, …) alone, "
                + "or google.com, github.com or an oidc. ID with clientID (the app's desktop OAuth client; GitHub's also needs clientSecret).")
        }
        do throws(AuthError) {
            try OAuthCredential.checkProviderID(providerID)
        } catch {
            throw BrokerError(.invalidArgument, "provider's providerID: \(error.message)")
        }
        self.providerID = providerID
        clientID = strings["clientID"]
        if clientID == nil {
            // The project's own provider: Firebase begins the sign-in; nothing of an app's own client goes with it.
            guard strings["issuer"] == nil, strings["clientSecret"] == nil else {
                throw BrokerError(.invalidArgument, "provider's issuer and clientSecret go with clientID, the app's own OAuth client; "
                    + "without one, Firebase begins the sign-in with the project's own provider.")
            }
            scopes = strings["scope"].map { $0.split(separator: " ").map(String.init) } ?? []
            if case .strings(let parameters)? = values["customParameters"] { customParameters = parameters }
        } else {
            guard strings["scope"] == nil, values["customParameters"] == nil else {
                throw BrokerError(.invalidArgument, "provider's scope and customParameters go with the project's own provider (no clientID).")
            }
            let ownIssuer = ["google.com", "github.com"].contains(providerID)
            guard ownIssuer || strings["issuer"] != nil else {
                throw BrokerError(.invalidArgument, "provider \(BrokerArguments.quoted(providerID)) needs issuer, the OpenID Connect issuer URL.")
            }
            issuer = ownIssuer ? nil : strings["issuer"]
            clientSecret = strings["clientSecret"]
        }
    }

    /// Refuses a flow whose provider the caller names (an issuer) when the caller may not reach the network itself:
    /// the broker, a host process, must not be its way out of its sandbox.
    func checkNetwork(of identity: CallerIdentity) throws(BrokerError) {
        guard issuer != nil, !identity.sharesNetwork else { return }
        throw BrokerError(.accessDenied, "This app (\(identity.caller)) has no network permission (Flatpak's --share=network), so the broker sends "
            + "no request to a provider it names; give the app that permission, or sign in with google.com.")
    }

    /// Runs the flow: the project's own provider begun by Firebase through `auth` (`createAuthUri`), or, with the app's
    /// own client, reads the provider's discovery document; opens the browser (the desktop portal where the session has
    /// one, else `xdg-open`) and waits for the provider's redirect, at most five minutes. The broker's
    /// requests connect only to `addresses`. A sandboxed `caller` is not told what the provider's server answered to
    /// the discovery (its status, its words, whether it answered at all): the broker's log says it.
    func credential(
        for caller: Caller, auth: Auth, addresses: ReachableAddresses, gitHubHost: URL, logger: Logger
    ) async throws -> AuthCredential {
        guard let clientID else { return try await projectProviderCredential(auth: auth) }
        return try await ownClientCredential(clientID: clientID, for: caller, addresses: addresses, gitHubHost: gitHubHost, logger: logger)
    }

    /// The Firebase project's own provider, begun by Firebase through `auth`.
    private func projectProviderCredential(auth: Auth) async throws -> AuthCredential {
        let provider = OAuthProvider(providerID: providerID, auth: auth)
        provider.scopes = scopes
        provider.customParameters = customParameters
        return try await provider.credential(with: nil)
    }

    /// The desktop OAuth flow with the app's own client.
    private func ownClientCredential(
        clientID: String, for caller: Caller, addresses: ReachableAddresses, gitHubHost: URL, logger: Logger
    ) async throws(AuthError) -> OAuthCredential {
        var provider = providerID == "github.com" ? DesktopOAuthProvider.github(host: gitHubHost) : .google
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
