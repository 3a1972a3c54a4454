import Foundation

/// The emulator's refresh tokens, in firebase-tools' form: base64 of a JSON record marked
/// `_AuthEmulatorRefreshToken`, with the uid (`localId`), the session's sign-in method (`provider`), the
/// claims of the custom token it began with (`extraClaims`, so that refreshed ID tokens carry them too), the
/// project, the tenant, and the second factor the session was finished with (`secondFactor`: `identifier`,
/// `provider`). Ours adds the account's token generation and secret, so that an account's sessions
/// all end when its generation is raised (password change, revocation) and a token cannot be made from a uid.
struct RefreshToken {
    var uid: String
    var generation: Int
    var secret: String
    var provider: String
    /// A JSON object as text; `nil` for none.
    var claims: String?
    var projectID: String
    var tenantID: String?
    /// The second factor that finished the session's sign-in.
    var secondFactor: SecondFactorUse?

    init(
        uid: String, generation: Int, secret: String, provider: String, claims: String?, projectID: String, tenantID: String?,
        secondFactor: SecondFactorUse? = nil
    ) {
        self.uid = uid
        self.generation = generation
        self.secret = secret
        self.provider = provider
        self.claims = claims
        self.projectID = projectID
        self.tenantID = tenantID
        self.secondFactor = secondFactor
    }

    /// Reads a token this emulator issued; `nil` when it is not one.
    init?(_ token: String) {
        guard token.utf8.count <= 16_384, let data = Data(base64Encoded: Self.padded(token)),
            let record = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            record["_AuthEmulatorRefreshToken"] is String,
            let uid = record["localId"] as? String, let provider = record["provider"] as? String,
            let projectID = record["projectId"] as? String,
            let generation = (record["generation"] as? NSNumber)?.intValue, let secret = record["secret"] as? String
        else { return nil }
        let claims = (record["extraClaims"] as? [String: Any]).flatMap { $0.isEmpty ? nil : $0 }
            .flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }
            .map { String(decoding: $0, as: UTF8.self) }
        let factor = record["secondFactor"] as? [String: Any]
        self.init(
            uid: uid, generation: generation, secret: secret, provider: provider, claims: claims, projectID: projectID,
            tenantID: record["tenantId"] as? String,
            secondFactor: (factor?["identifier"] as? String).flatMap { identifier in
                (factor?["provider"] as? String).map { SecondFactorUse(identifier: identifier, provider: $0) }
            })
    }

    var encoded: String {
        let extraClaims = claims.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } ?? [String: Any]()
        var record: [String: Any] = [
            "_AuthEmulatorRefreshToken": "DO NOT MODIFY", "localId": uid, "provider": provider, "extraClaims": extraClaims,
            "projectId": projectID, "generation": generation, "secret": secret,
        ]
        record["tenantId"] = tenantID
        record["secondFactor"] = secondFactor.map { ["identifier": $0.identifier, "provider": $0.provider] }
        // Strings, numbers and a parsed JSON object always serialize.
        return try! JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]).base64EncodedString()
    }

    /// A second factor a session's sign-in was finished with: its enrollment ID and kind (`totp`).
    struct SecondFactorUse: Hashable, Sendable {
        var identifier: String
        var provider: String
    }

    /// Base64 as clients may send it back: without its padding.
    private static func padded(_ token: String) -> String {
        token + String(repeating: "=", count: (4 - token.utf8.count % 4) % 4)
    }
}
