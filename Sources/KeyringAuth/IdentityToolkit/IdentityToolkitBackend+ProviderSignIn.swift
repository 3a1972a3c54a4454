extension IdentityToolkitBackend {
    package func startProviderSignIn(
        _ request: ProviderSignInRequest, context: AuthRequestContext
    ) async throws(AuthError) -> ProviderSignInStart {
        let reply: CreateAuthUriReply = try await post(
            "createAuthUri",
            json: [
                "providerId": request.providerID, "continueUri": request.continueURI, "sessionId": request.sessionID,
                "customParameter": request.customParameters.isEmpty ? nil : request.customParameters,
                "oauthScope": request.scopes.isEmpty ? nil : request.scopes.joined(separator: " "),
            ], tenant: true, context: context)
        guard let authURI = reply.authUri, !authURI.isEmpty else {
            throw AuthError(
                .internalError,
                "The identity service began no \(request.providerID) sign-in (its answer had no authorization URL); "
                    + "check that the provider is enabled in the Firebase console.")
        }
        return ProviderSignInStart(authorizationURL: authURI, sessionID: reply.sessionId ?? request.sessionID)
    }
}
