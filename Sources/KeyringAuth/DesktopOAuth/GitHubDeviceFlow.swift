import Foundation
import Logging

/// GitHub's device flow (RFC 8628, as GitHub serves it): the app asks GitHub for a code, shows it with the address
/// where the person enters it (``GitHubDeviceAuthorization``), and waits while they authorize the app there, in any
/// browser, on any device; GitHub's access token then signs in to Firebase through ``GitHubAuthProvider``.
///
/// KeyringAuth's own (Firebase's SDKs have no desktop GitHub sign-in); `gh auth login` signs in the same way. The
/// GitHub OAuth app needs "Enable Device Flow" in its settings; no client secret is used. No code or token is logged.
///
/// ```swift
/// let flow = GitHubDeviceFlow(clientID: "Iv1.0123456789abcdef")
/// let authorization = try await flow.start()
/// print("Enter \(authorization.userCode) at \(authorization.verificationURI)")
/// let credential = try await flow.credential(for: authorization)   // cancel the task to stop waiting
/// let user = try await Auth.auth().signIn(with: credential).user
/// ```
public struct GitHubDeviceFlow: Sendable {
    /// The GitHub OAuth app's client ID.
    public var clientID: String
    /// The scopes asked for; `read:user` and `user:email` give Firebase the account's profile and address.
    public var scopes: [String] = ["read:user", "user:email"]
    /// Where the code is asked for.
    public var deviceCodeEndpoint = URL(string: "https://github.com/login/device/code")!
    /// Where the token is polled for.
    public var tokenEndpoint = URL(string: "https://github.com/login/oauth/access_token")!
    /// How long each request may take.
    public var requestTimeout: Duration = .seconds(30)
    /// Where the flow's steps are logged (never a code or a token).
    public var logger = Logger(label: "KeyringAuth.GitHubDeviceFlow")

    /// A flow for the GitHub OAuth app `clientID`, on github.com or a GitHub Enterprise Server at `host`
    /// (`https://github.example.com`: its `/login/device/code` and `/login/oauth/access_token`).
    public init(clientID: String, host: URL = URL(string: "https://github.com")!) {
        self.clientID = clientID
        deviceCodeEndpoint = host.appendingPathComponent("login/device/code")
        tokenEndpoint = host.appendingPathComponent("login/oauth/access_token")
    }

    /// Asks GitHub for a code for the person to enter.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/invalidClientID`` (an unknown client, or one without the device flow),
    ///   ``AuthErrorCode/invalidConfiguration`` (an endpoint that is not https), ``AuthErrorCode/networkError``,
    ///   ``AuthErrorCode/internalError`` (an answer that is not GitHub's).
    public func start() async throws(AuthError) -> GitHubDeviceAuthorization {
        try DesktopOAuthProvider.checkEndpoints([("device code", deviceCodeEndpoint), ("token", tokenEndpoint)], of: GitHubAuthProvider.id)
        let answer = try await post(deviceCodeEndpoint, ["client_id": clientID, "scope": scopes.joined(separator: " ")], what: "code")
        guard answer.status == 200, let object = answer.object, object["error"] == nil else { throw refusal(answer, what: "a code") }
        guard let deviceCode = object["device_code"] as? String, !deviceCode.isEmpty, deviceCode.utf8.count <= 4096,
            let userCode = object["user_code"] as? String, !userCode.isEmpty, userCode.utf8.count <= 64,
            let address = object["verification_uri"] as? String, let verificationURI = URL(string: address),
            verificationURI.scheme?.lowercased() == "https" || verificationURI.hasLoopbackHost
        else {
            throw AuthError(.internalError, "GitHub's answer to the code request is not a device code, a user code and an https address.")
        }
        let lifetime = Self.seconds(object["expires_in"]) ?? 900
        return GitHubDeviceAuthorization(
            userCode: DesktopOAuthFlow.printable(userCode, limit: 64), verificationURI: verificationURI,
            expirationDate: Date().addingTimeInterval(Double(min(max(lifetime, 1), 3600))),
            interval: .seconds(min(max(Self.seconds(object["interval"]) ?? 5, 0), 60)), deviceCode: deviceCode)
    }

    /// Waits while the person authorizes the app, polling at GitHub's interval (longer when GitHub says `slow_down`),
    /// and answers GitHub's credential. Cancelling the task stops it at once.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/webContextCancelled`` (the code expired first, or the task was
    ///   cancelled), ``AuthErrorCode/webSignInUserInteractionFailure`` (the person denied the app),
    ///   ``AuthErrorCode/invalidClientID`` (the device flow is off for the app), ``AuthErrorCode/networkError``.
    public func credential(for authorization: GitHubDeviceAuthorization) async throws(AuthError) -> AuthCredential {
        var interval = authorization.interval
        while true {
            do {
                try await Task.sleep(for: interval)
            } catch {
                throw AuthError(.webContextCancelled, "The GitHub sign-in was cancelled.")
            }
            guard Date() < authorization.expirationDate else {
                throw AuthError(.webContextCancelled, "The GitHub code \(authorization.userCode) expired before it was entered; start the sign-in again.")
            }
            let answer = try await post(tokenEndpoint, [
                "client_id": clientID, "device_code": authorization.deviceCode,
                "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            ], what: "token")
            guard let object = answer.object else { throw refusal(answer, what: "the token") }
            if let token = object["access_token"] as? String, !token.isEmpty, token.utf8.count <= 8192 {
                logger.debug("GitHub authorized the app")
                return GitHubAuthProvider.credential(withToken: token)
            }
            interval = try Self.interval(after: object, interval: interval)
        }
    }

    /// The interval to poll at after the token answer `object` without a token (RFC 8628 §3.5, GitHub's error names),
    /// polling at `interval` so far: `authorization_pending` keeps it; `slow_down` takes the interval the answer gives,
    /// or five seconds more, never less than before; anything else is the error it names.
    static func interval(after object: [String: Any], interval: Duration) throws(AuthError) -> Duration {
        let error = DesktopOAuthFlow.printable(object["error"] as? String ?? "", limit: 64)
        switch error {
        case "authorization_pending":
            return interval
        case "slow_down":
            let given = seconds(object["interval"]).map { Duration.seconds(min(max($0, 0), 60)) }
            return max(given ?? interval + .seconds(5), interval)
        case "expired_token":
            throw AuthError(.webContextCancelled, "The GitHub code expired before it was entered; start the sign-in again.")
        case "access_denied":
            throw AuthError(.webSignInUserInteractionFailure, "The GitHub sign-in was declined in the browser.")
        case "device_flow_disabled":
            throw AuthError(
                .invalidClientID, "The GitHub OAuth app does not allow the device flow: tick \"Enable Device Flow\" in its settings on GitHub.")
        case "incorrect_client_credentials", "unauthorized_client":
            throw AuthError(.invalidClientID, "GitHub does not know the client ID (\(error)); check the GitHub OAuth app's client ID.")
        default:
            guard !error.isEmpty else {
                throw AuthError(
                    .internalError,
                    "GitHub's answer held neither a token nor an error; check the GitHub Enterprise host, or a proxy between here and GitHub.")
            }
            throw AuthError(.internalError, "GitHub refused the token request: \(error).")
        }
    }

    private struct Answer {
        let status: Int
        let object: [String: Any]?
    }

    private func post(_ url: URL, _ fields: [String: String], what: String) async throws(AuthError) -> Answer {
        let body = Data(fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(OAuthCredential.formEncoded($0.value))" }.joined(separator: "&").utf8)
        do {
            let answer = try await CurlTransport().post(
                to: url, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")], body: body,
                timeout: requestTimeout)
            guard answer.body.count <= TokenAnswer.maximumBytes else { return Answer(status: answer.status, object: nil) }
            return Answer(status: answer.status, object: (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])
        } catch {
            if error.kind == .cancelled { throw AuthError(.webContextCancelled, "The GitHub sign-in was cancelled.") }
            throw AuthError(.networkError, "GitHub (\(url.host ?? "?")) did not answer the \(what) request: \(error.message); check the connection.")
        }
    }

    private func refusal(_ answer: Answer, what: String) -> AuthError {
        if answer.status >= 500 { return AuthError(.networkError, "GitHub failed to give \(what) (HTTP \(answer.status)); try again later.") }
        let named = (answer.object?["error"] as? String).map { DesktopOAuthFlow.printable($0, limit: 64) }
        if named == "device_flow_disabled" {
            return AuthError(
                .invalidClientID, "The GitHub OAuth app does not allow the device flow: tick \"Enable Device Flow\" in its settings on GitHub.")
        }
        if let named, ["unauthorized_client", "incorrect_client_credentials"].contains(named) {
            return AuthError(.invalidClientID, "GitHub does not know the client ID (\(named)); check the GitHub OAuth app's client ID.")
        }
        if [401, 403, 404, 422].contains(answer.status) {
            return AuthError(
                .invalidClientID,
                "GitHub refused to give \(what) (\(named ?? "HTTP \(answer.status)")): check the client ID, and that the GitHub OAuth app allows "
                    + "the device flow.")
        }
        guard let named else {
            // An answer GitHub would not give: neither what was asked for nor an error (a proxy's page, a wrong host).
            return AuthError(
                .internalError,
                "GitHub's answer (HTTP \(answer.status)) held neither \(what) nor an error; check --github-host, or a proxy between here and GitHub.")
        }
        return AuthError(.internalError, "GitHub refused to give \(what): \(named).")
    }

    private static func seconds(_ value: Any?) -> Int64? {
        (value as? NSNumber).map { $0.int64Value } ?? (value as? String).flatMap { Int64($0) }
    }
}

/// What the person does to let the app in (``GitHubDeviceFlow/start()``): enter ``userCode`` at ``verificationURI``
/// before ``expirationDate``.
public struct GitHubDeviceAuthorization: Sendable, CustomStringConvertible {
    /// The code to enter, as `XXXX-XXXX`.
    public let userCode: String
    /// Where to enter it, `https://github.com/login/device`.
    public let verificationURI: URL
    /// When the code stops working (GitHub gives fifteen minutes).
    public let expirationDate: Date
    /// How often GitHub is asked whether the person has finished.
    public let interval: Duration
    /// The device code, which polls for the token (not shown to anyone).
    let deviceCode: String

    public var description: String { "GitHubDeviceAuthorization(\(userCode) at \(verificationURI))" }
}
