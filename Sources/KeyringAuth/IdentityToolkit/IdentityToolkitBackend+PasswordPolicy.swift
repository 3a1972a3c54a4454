import Foundation

// Identity Toolkit's `GET v2/passwordPolicy`: the password policy of the project, or of the context's tenant.
extension IdentityToolkitBackend {
    package func passwordPolicy(context: AuthRequestContext) async throws(AuthError) -> PasswordPolicyAnswer {
        let endpoint = try endpoint()
        let operation = "passwordPolicy"
        let answer = try await get(endpoint.passwordPolicyURL(apiKey: apiKey, tenantID: context.tenantID), operation: operation, context: context)
        // Neither Firebase's Auth emulator (firebase-tools answers 501, not implemented) nor this package's (404) serves
        // it: there, a project's answer without a policy.
        if endpoint.emulatorHost != nil, [404, 501].contains(answer.status) { return .none }
        return try IdentityToolkitReply.decode(PasswordPolicyAnswer.self, status: answer.status, body: answer.body, operation: operation)
    }
}
