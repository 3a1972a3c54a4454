import Foundation

extension EmulatorService {
    static let legacyRelyingParty = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"

    /// Identity Toolkit's `v3` paths that older SDKs still call, and the `v1` operation each is, as firebase-tools
    /// rewrites them.
    static let legacyOperations: [String: String] = [
        "createAuthUri": "accounts:createAuthUri", "deleteAccount": "accounts:delete",
        "emailLinkSignin": "accounts:signInWithEmailLink", "getAccountInfo": "accounts:lookup",
        "getOobConfirmationCode": "accounts:sendOobCode", "getRecaptchaParam": "recaptchaParams", "resetPassword": "accounts:resetPassword",
        "sendVerificationCode": "accounts:sendVerificationCode", "setAccountInfo": "accounts:update", "signupNewUser": "accounts:signUp",
        "verifyAssertion": "accounts:signInWithIdp", "verifyCustomToken": "accounts:signInWithCustomToken",
        "verifyPassword": "accounts:signInWithPassword", "verifyPhoneNumber": "accounts:signInWithPhoneNumber",
    ]

    /// A `v3` request as the `v1` request it is: the same body under the `v1` path; `downloadAccount` and
    /// `uploadAccount` become the Admin API's `batchGet` (its body as the query) and `batchCreate` of the body's
    /// `targetProjectId` (snake_case keys taken as camelCase). `nil` for a `v3` path that is not one of them.
    ///
    /// - Throws: `INSUFFICIENT_PERMISSION` for `downloadAccount` and `uploadAccount` without `targetProjectId`.
    func v1Request(forLegacy request: EmulatorRequest) throws(EmulatorFailure) -> EmulatorRequest? {
        let method = String(request.path.dropFirst(Self.legacyRelyingParty.count))
        var rewritten = request
        if let operation = Self.legacyOperations[method] {
            rewritten.path = Self.identityToolkit + operation
            return rewritten
        }
        guard request.method == "POST", ["downloadAccount", "uploadAccount"].contains(method) else { return nil }
        var values = try request.fields().values
        values = Dictionary(values.map { (Self.camelCase($0.key), $0.value) }) { first, _ in first }
        guard let project = values.removeValue(forKey: "targetProjectId") as? String, !project.isEmpty else {
            throw EmulatorFailure("INSUFFICIENT_PERMISSION")
        }
        let base = Self.identityToolkit + "projects/\(project)/accounts:"
        if method == "downloadAccount" {
            rewritten.method = "GET"
            rewritten.path = base + "batchGet"
            for (name, value) in values { rewritten.query[name] = "\(value)" }
            rewritten.body = Data()
        } else {
            rewritten.path = base + "batchCreate"
            guard let body = try? JSONSerialization.data(withJSONObject: values) else {
                throw EmulatorFailure("INVALID_ARGUMENT : Invalid JSON payload received.")
            }
            rewritten.body = body
            rewritten.headers["content-type"] = "application/json"
        }
        return rewritten
    }

    /// `next_page_token` → `nextPageToken`.
    private static func camelCase(_ name: String) -> String {
        let words = name.split(separator: "_", omittingEmptySubsequences: true)
        guard let first = words.first else { return name }
        return String(first) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
