import Foundation
import SystemSupport

extension EmulatorService {
    /// The shortest and longest life of a session cookie, in seconds, as Identity Toolkit allows them.
    static let sessionCookieDurations: ClosedRange<Int64> = 5 * 60...14 * 24 * 60 * 60

    /// `projects/{p}:createSessionCookie` (the Admin SDKs' `create_session_cookie`), as firebase-tools answers it: an
    /// unsigned JWT with the ID token's claims, issued now (`iat`), ending after `validDuration` seconds (14 days when
    /// not given) and issued by `https://session.firebase.google.com/{project}`.
    ///
    /// - Throws: `MISSING_ID_TOKEN`; `INVALID_DURATION` outside 5 minutes to 14 days; the ID token's own errors
    ///   (`INVALID_ID_TOKEN`, `USER_NOT_FOUND`, `TOKEN_EXPIRED`).
    func createSessionCookie(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        guard let idToken = try fields.string("idToken"), !idToken.isEmpty else { throw EmulatorFailure("MISSING_ID_TOKEN") }
        let requested = try fields.integer("validDuration") ?? 0
        let duration = requested == 0 ? Self.sessionCookieDurations.upperBound : requested
        guard Self.sessionCookieDurations.contains(duration) else { throw EmulatorFailure("INVALID_DURATION") }
        _ = try state.withLock { state throws(EmulatorFailure) in try verify(idToken, in: state) }
        guard var claims = UnverifiedJWT.decode(idToken)?.payload else { throw EmulatorFailure("INVALID_ID_TOKEN") }
        let now = clock().seconds
        claims["iat"] = now
        claims["exp"] = now + duration
        claims["iss"] = "https://session.firebase.google.com/\(projectID)"
        guard let payload = try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]) else {
            throw EmulatorFailure("INVALID_ID_TOKEN")
        }
        let header = Data(#"{"alg":"none","typ":"JWT"}"#.utf8)
        return ["sessionCookie": Base64URL.encode(header) + "." + Base64URL.encode(payload) + "."]
    }
}
