/// The secret of a TOTP second factor being enrolled, as Firebase's `TOTPSecret`: shown to the user (as text or
/// a QR code) for their authenticator app, then passed with its first code to
/// ``TOTPMultiFactorGenerator/assertionForEnrollment(with:oneTimePassword:)``. A secret: never logged.
public final class TOTPSecret: Sendable, CustomStringConvertible {
    let secretKey: String
    /// The enrollment's session (`sessionInfo`).
    let sessionInfo: String
    let hashingAlgorithm: String
    let codeLength: Int
    let period: Int

    init(secretKey: String, sessionInfo: String, hashingAlgorithm: String, codeLength: Int, period: Int) {
        self.secretKey = secretKey
        self.sessionInfo = sessionInfo
        self.hashingAlgorithm = hashingAlgorithm
        self.codeLength = codeLength
        self.period = period
    }

    /// The secret in base32, for typing into an authenticator app.
    public func sharedSecretKey() -> String { secretKey }

    /// The `otpauth://` URL authenticator apps read from a QR code, in Firebase's form:
    /// `otpauth://totp/ISSUER:ACCOUNT?secret=…&issuer=ISSUER&algorithm=SHA1&digits=6`.
    public func generateQRCodeURL(withAccountName accountName: String, issuer: String) -> String {
        "otpauth://totp/\(issuer):\(accountName)?secret=\(secretKey)&issuer=\(issuer)&algorithm=\(hashingAlgorithm)&digits=\(codeLength)"
    }

    /// Never the secret.
    public var description: String { "TOTPSecret(\(hashingAlgorithm), \(codeLength) digits, \(period) s)" }
}
