import Foundation
import SystemSupport

/// The emulator's ID tokens: JWTs with `alg: none` and an empty signature, carrying the claims
/// Firebase puts in its own (iss, aud, sub, user_id, iat, exp, auth_time, `firebase.sign_in_provider`),
/// plus a `jti` (RFC 7519's token ID) so that two tokens issued in one second still differ, as apps
/// watching for token changes expect.
struct UnsignedIDToken: Hashable, Sendable {
    var projectID: String
    var uid: String
    var issuedAt: Int64
    var expiresAt: Int64
    var authTime: Int64
    var signInProvider: String
    var email: String?
    var emailVerified: Bool
    var tenantID: String?
    /// `firebase.identities`: the user's ID at each provider, and its email address.
    var identities: [String: [String]] = [:]
    /// Custom claims, JSON objects as text, put at the top level in order (a later one wins); never the
    /// claims the token sets itself.
    var customClaims: [String] = []
    /// `name`, `picture` and `phone_number`, as Firebase's tokens carry them (custom claims may override the
    /// first two, as in Firebase's emulator).
    var name: String?
    var picture: String?
    var phoneNumber: String?
    /// `firebase.sign_in_attributes`: a SAML assertion's attribute statements, JSON text.
    var signInAttributes: String?
    /// `firebase.sign_in_second_factor` and `firebase.second_factor_identifier`: the second factor that finished the
    /// sign-in, as Firebase and its emulator put it.
    var secondFactor: RefreshToken.SecondFactorUse?

    /// The token as sent: `base64url(header).base64url(payload).` (an empty signature).
    var encoded: String {
        var firebase: [String: Any] = ["identities": identities, "sign_in_provider": signInProvider]
        if let tenantID { firebase["tenant"] = tenantID }
        firebase["sign_in_attributes"] = signInAttributes.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
        firebase["sign_in_second_factor"] = secondFactor?.provider
        firebase["second_factor_identifier"] = secondFactor?.identifier
        var payload: [String: Any] = [:]
        payload["name"] = name
        payload["picture"] = picture
        for claims in customClaims {
            guard let object = try? JSONSerialization.jsonObject(with: Data(claims.utf8)) as? [String: Any] else { continue }
            payload.merge(object.filter { !CustomClaims.reserved.contains($0.key) }) { _, later in later }
        }
        payload.merge([
            "iss": "https://securetoken.google.com/\(projectID)", "aud": projectID, "sub": uid, "user_id": uid,
            "iat": issuedAt, "exp": expiresAt, "auth_time": authTime, "firebase": firebase,
            "jti": EmulatorAccount.randomID(length: 16),
        ]) { _, own in own }
        if let email {
            payload["email"] = email
            payload["email_verified"] = emailVerified
        }
        payload["phone_number"] = phoneNumber
        // As firebase-tools marks an anonymous user's token.
        if signInProvider == "anonymous" { payload["provider_id"] = "anonymous" }
        let header = #"{"alg":"none","typ":"JWT"}"#
        // Plain strings, numbers and nested dictionaries always serialize.
        let body = try! JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        return "\(Base64URL.encode(Data(header.utf8))).\(Base64URL.encode(body))."
    }

    /// Reads a token this emulator issued; `nil` when it is not one (wrong shape, project or algorithm).
    init?(decoding token: String, projectID: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].isEmpty,
            let headerData = Base64URL.decode(parts[0]), let payloadData = Base64URL.decode(parts[1]),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            header["alg"] as? String == "none",
            let payload = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any],
            payload["aud"] as? String == projectID,
            payload["iss"] as? String == "https://securetoken.google.com/\(projectID)",
            let uid = payload["user_id"] as? String, !uid.isEmpty, payload["sub"] as? String == uid,
            let issuedAt = (payload["iat"] as? NSNumber)?.int64Value,
            let expiresAt = (payload["exp"] as? NSNumber)?.int64Value
        else { return nil }
        let firebase = payload["firebase"] as? [String: Any]
        self.init(
            projectID: projectID, uid: uid, issuedAt: issuedAt, expiresAt: expiresAt,
            authTime: (payload["auth_time"] as? NSNumber)?.int64Value ?? issuedAt,
            signInProvider: firebase?["sign_in_provider"] as? String ?? "custom",
            email: payload["email"] as? String, emailVerified: payload["email_verified"] as? Bool ?? false,
            tenantID: firebase?["tenant"] as? String)
    }

    init(
        projectID: String, uid: String, issuedAt: Int64, expiresAt: Int64, authTime: Int64, signInProvider: String,
        email: String?, emailVerified: Bool, tenantID: String?, identities: [String: [String]] = [:], customClaims: [String] = [],
        name: String? = nil, picture: String? = nil, phoneNumber: String? = nil, signInAttributes: String? = nil,
        secondFactor: RefreshToken.SecondFactorUse? = nil
    ) {
        self.signInAttributes = signInAttributes
        self.secondFactor = secondFactor
        self.name = name
        self.picture = picture
        self.phoneNumber = phoneNumber
        self.projectID = projectID
        self.uid = uid
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.authTime = authTime
        self.signInProvider = signInProvider
        self.email = email
        self.emailVerified = emailVerified
        self.tenantID = tenantID
        self.identities = identities
        self.customClaims = customClaims
    }
}

/// A JWT's parts as JSON objects, whatever its algorithm (the emulator checks no signature, as
/// Firebase's does not); `nil` when it is not a JWT of JSON objects.
enum UnverifiedJWT {
    static func decode(_ token: String) -> (header: [String: Any], payload: [String: Any])? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let payloadData = Base64URL.decode(parts[1]),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let payload = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any]
        else { return nil }
        return (header, payload)
    }
}
