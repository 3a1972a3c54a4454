import Foundation

/// Firebase's rules for custom claims, on an account (the Admin SDK's `setCustomUserClaims`) and in a
/// custom token: a JSON object of at most 1,000 bytes that sets none of the claims Firebase reserves.
enum CustomClaims {
    static let maximumBytes = 1000

    /// The claims ID tokens carry themselves.
    static let reserved: Set<String> = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time", "firebase",
        "at_hash", "c_hash", "user_id",
    ]

    /// Why `claims` cannot be custom claims, or `nil`.
    static func problem(with claims: [String: Any]) -> String? {
        guard JSONSerialization.isValidJSONObject(claims),
            let data = try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        else { return "the claims are not a JSON object" }
        if let key = claims.keys.sorted().first(where: reserved.contains) { return "the claim \(key) is reserved" }
        guard data.count <= maximumBytes else { return "the claims take \(data.count) bytes, more than \(maximumBytes)" }
        return nil
    }

    /// Identity Toolkit's error for account claims given as JSON text (`accounts:update`'s `customAttributes`),
    /// checked in its order: `CLAIMS_TOO_LARGE` (over 1,000 characters), `INVALID_CLAIMS` (not a JSON object),
    /// `FORBIDDEN_CLAIM : name`; `nil` when they are good.
    static func serviceError(withJSON json: String) -> String? {
        guard json.count <= maximumBytes else { return "CLAIMS_TOO_LARGE" }
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return "INVALID_CLAIMS" }
        return forbiddenClaim(in: object).map { "FORBIDDEN_CLAIM : \($0)" }
    }

    /// The first reserved claim `object` sets, in Identity Toolkit's order; `nil` when it sets none.
    static func forbiddenClaim(in object: [String: Any]) -> String? {
        let order = ["iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time", "firebase",
            "at_hash", "c_hash", "user_id"]
        return order.first { object[$0] != nil }
    }

    /// Why the JSON text `json` cannot be custom claims, or `nil`.
    static func problem(withJSON json: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            return "the claims are not a JSON object"
        }
        return problem(with: object)
    }
}
