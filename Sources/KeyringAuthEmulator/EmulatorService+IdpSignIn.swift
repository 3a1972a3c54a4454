import Foundation
import SystemSupport

// An identity provider's sign-in begun by `accounts:createAuthUri` with a `providerId` and finished by
// `accounts:signInWithIdp`, as Identity Platform serves it (Firebase's emulator answers 501): the authorization
// URL leads to the emulator's own page for that provider (EmulatorService+IdpPage), which sends the browser
// back to `continueUri` with a one-time `code` and the `state`; `signInWithIdp` with that URL as `requestUri`
// and the `sessionId` signs in as the user chosen there.
extension EmulatorService {
    /// At most this many sign-ins wait for their answer; a new one drops the oldest.
    static let maximumPendingIdpSignIns = 300
    /// How long, in seconds, a begun sign-in can be answered on the page and finished.
    static let idpSignInLifetime: Int64 = 600
    /// The emulator's identity provider page, which `authUri` leads to.
    static let idpPagePath = "/emulator/auth/idp"

    /// `createAuthUri` with a `providerId`: keeps the sign-in and answers `authUri` (the emulator's page, with the
    /// provider's `redirect_uri` = `continueUri`, a new `state`, `scope` from `oauthScope` and each
    /// `customParameter`), `providerId` and `sessionId` (the caller's, else a new one).
    ///
    /// - Throws: `INVALID_PROVIDER_ID` (not an identity provider's ID); `MISSING_CONTINUE_URI`;
    ///   `INVALID_CONTINUE_URI` (not an absolute `http`/`https` URI, or with a fragment or a `state` query
    ///   parameter); `INVALID_ARGUMENT` for a reserved or non-string `customParameter`.
    func beginIdpSignIn(
        _ fields: RequestFields, providerId givenProviderId: String, sessionID: String, tenant: String?, host: String?
    ) throws(EmulatorFailure) -> [String: Any] {
        let providerId = givenProviderId.lowercased()
        guard !Self.reservedProviders.contains(providerId), providerId.contains("."), providerId.utf8.count <= 256 else {
            throw EmulatorFailure("INVALID_PROVIDER_ID : Provider Id is not supported.")
        }
        guard let continueUri = try fields.string("continueUri"), !continueUri.isEmpty else {
            throw EmulatorFailure("MISSING_CONTINUE_URI")
        }
        guard let uri = URLComponents(string: continueUri), ["http", "https"].contains(uri.scheme?.lowercased() ?? ""),
            uri.host?.isEmpty == false, continueUri.utf8.count <= 2048
        else {
            throw EmulatorFailure("INVALID_CONTINUE_URI : ((an absolute http or https URI of at most 2048 bytes))")
        }
        guard uri.fragment == nil else { throw EmulatorFailure("INVALID_CONTINUE_URI : ((the continueUri may not have a fragment))") }
        guard !(uri.queryItems ?? []).contains(where: { $0.name == "state" }) else {
            throw EmulatorFailure("INVALID_CONTINUE_URI : ((the continueUri may not have the reserved state query parameter))")
        }
        guard sessionID.utf8.count <= 1024 else {
            throw EmulatorFailure("INVALID_ARGUMENT : ((the emulator takes a sessionId of at most 1024 bytes))")
        }
        var customParameters: [(String, String)] = []
        for (name, value) in try fields.object("customParameter")?.values ?? [:] {
            guard let text = value as? String else { throw EmulatorFailure("INVALID_ARGUMENT : Invalid value at 'customParameter'") }
            guard !OAuthParameters.reserved.contains(name) else {
                throw EmulatorFailure(
                    "INVALID_ARGUMENT : customParameter may not set '\(name.prefix(64))': "
                        + "\(OAuthParameters.reserved.sorted().joined(separator: ", ")) are reserved (give scopes in oauthScope)")
            }
            customParameters.append((name, text))
        }
        let scope = try fields.string("oauthScope").flatMap { $0.isEmpty ? nil : $0 }
        let now = clock().seconds
        let signIn = PendingIdpSignIn(
            state: EmulatorAccount.randomID(length: 40), sessionId: sessionID, providerId: providerId, continueUri: continueUri,
            tenantId: tenant, expiresAt: now + Self.idpSignInLifetime)
        state.withLock { state in
            Self.dropExpiredIdpSignIns(from: &state, now: now)
            state.idpSignIns.append(signIn)
            if state.idpSignIns.count > Self.maximumPendingIdpSignIns { state.idpSignIns.removeFirst() }
        }
        var query = [("providerId", providerId), ("redirect_uri", continueUri), ("state", signIn.state)]
        if let scope { query.append(("scope", scope)) }
        query += customParameters.sorted { $0.0 < $1.0 }
        let authUri = "http://\(Self.pageHost(host))\(Self.idpPagePath)?" + Self.queryString(query)
        return ["kind": "identitytoolkit#CreateAuthUriResponse", "authUri": authUri, "providerId": providerId, "sessionId": sessionID]
    }

    /// For a `signInWithIdp` whose `requestUri` (or `postBody`) carries a provider's answer — a `code` or an
    /// `error`, with the `state` — to a sign-in begun by `createAuthUri`: checks that it is that sign-in's
    /// (its `state`, `sessionId`, tenant, a `requestUri` at its `continueUri`'s address, the page's code) and
    /// ends it, then gives the `postBody` naming the user chosen on the page, as firebase-tools' widget names one
    /// (`providerId`, `id_token` as JSON claims). `nil` for the other forms, which signInWithIdp reads as before.
    ///
    /// - Throws: `INVALID_IDP_RESPONSE` (no such sign-in, a missing or wrong `sessionId`, a wrong code, a
    ///   provider's error other than a refusal), `TENANT_ID_MISMATCH`, `INVALID_REQUEST_URI`, `USER_CANCELLED`
    ///   (the person declined: `error=access_denied`).
    func finishIdpSignIn(
        requestUri: String, parameters: String, sessionId: String?, tenant: String?
    ) throws(EmulatorFailure) -> String? {
        let answer = FormFields.parse(parameters).compactMapValues { $0.first }
        guard answer["code"] != nil || answer["error"] != nil, answer["id_token"] == nil, answer["access_token"] == nil else { return nil }
        guard let flowState = answer["state"], !flowState.isEmpty else {
            throw EmulatorFailure(
                "INVALID_IDP_RESPONSE : ((requestUri has the provider's answer but no state: pass the whole URL the browser returned to))")
        }
        let (providerId, user) = try state.withLock { state throws(EmulatorFailure) -> (String, PendingIdpSignIn.ChosenUser) in
            Self.dropExpiredIdpSignIns(from: &state, now: clock().seconds)
            guard let index = state.idpSignIns.firstIndex(where: { $0.state == flowState }) else {
                throw EmulatorFailure(
                    "INVALID_IDP_RESPONSE : ((no sign-in begun by createAuthUri has this state: it was finished already, expired "
                        + "after \(Self.idpSignInLifetime / 60) minutes, or was not begun on this emulator))")
            }
            let signIn = state.idpSignIns[index]
            guard let sessionId, !sessionId.isEmpty else {
                throw EmulatorFailure("INVALID_IDP_RESPONSE : ((sessionId is required: pass the sessionId createAuthUri answered))")
            }
            guard sessionId == signIn.sessionId else {
                throw EmulatorFailure("INVALID_IDP_RESPONSE : ((the sessionId is not the one createAuthUri answered for this sign-in))")
            }
            guard tenant == signIn.tenantId else { throw EmulatorFailure("TENANT_ID_MISMATCH") }
            guard Self.isSameAddress(requestUri, as: signIn.continueUri) else {
                throw EmulatorFailure(
                    "INVALID_REQUEST_URI : ((requestUri must have the scheme, host, port and path of the continueUri given to createAuthUri))")
            }
            if let error = answer["error"] {
                state.idpSignIns.remove(at: index)
                let detail = [error, answer["error_description"]].compactMap { $0 }.joined(separator: ": ").prefix(512)
                throw EmulatorFailure(error == "access_denied" ? "USER_CANCELLED : \(detail)" : "INVALID_IDP_RESPONSE : \(detail)")
            }
            guard case .chose(let code, let user) = signIn.answer, answer["code"] == code else {
                throw EmulatorFailure("INVALID_IDP_RESPONSE : ((the code is not the one the emulator's page gave for this sign-in))")
            }
            state.idpSignIns.remove(at: index)
            return (signIn.providerId, user)
        }
        var claims: [String: Any] = ["sub": user.rawId, "email_verified": user.email != nil]
        claims["email"] = user.email
        claims["name"] = user.displayName
        claims["picture"] = user.photoUrl
        claims["screen_name"] = user.screenName
        var postBody = Self.queryString([("providerId", providerId), ("id_token", Self.json(claims))])
        if providerId.hasPrefix("saml.") {
            // As firebase-tools' widget answers for a SAML provider: the address as the assertion's subject.
            postBody += "&" + Self.queryString([("SAMLResponse", Self.json(["assertion": ["subject": ["nameId": user.email ?? user.rawId]]]))])
        }
        return postBody
    }

    /// Whether `requestUri` is at `continueUri`'s address: the same scheme and host (in any case), port (a missing one
    /// being the scheme's own) and path (an empty one being `/`); the query and fragment may differ. Not a prefix of
    /// the text: `http://localhost:1` is not `http://localhost:12/`, nor `https://example.com` `https://example.com.evil/`.
    static func isSameAddress(_ requestUri: String, as continueUri: String) -> Bool {
        guard let request = URLComponents(string: requestUri), let expected = URLComponents(string: continueUri),
            let scheme = request.scheme?.lowercased(), scheme == expected.scheme?.lowercased(),
            let host = request.host?.lowercased(), !host.isEmpty, host == expected.host?.lowercased()
        else { return false }
        let defaultPort = ["http": 80, "https": 443][scheme]
        func path(_ components: URLComponents) -> String { components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath }
        return (request.port ?? defaultPort) == (expected.port ?? defaultPort) && path(request) == path(expected)
    }

    /// Forgets the sign-ins that can no longer be finished.
    static func dropExpiredIdpSignIns(from state: inout State, now: Int64) {
        state.idpSignIns.removeAll { $0.expiresAt <= now }
    }

    /// `host` (a request's `Host` header) for an address the emulator makes, when it is a plain host and port;
    /// else `localhost`.
    static func pageHost(_ host: String?) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")
        guard let host, !host.isEmpty, host.utf8.count <= 300, host.unicodeScalars.allSatisfy(allowed.contains) else { return "localhost" }
        return host
    }

    /// `name=value&…`, each percent-encoded but for RFC 3986's unreserved characters.
    static func queryString(_ parameters: [(String, String)]) -> String {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
        return parameters.map { "\(encoded($0.0))=\(encoded($0.1))" }.joined(separator: "&")
    }

    private static func json(_ object: [String: Any]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }
}
