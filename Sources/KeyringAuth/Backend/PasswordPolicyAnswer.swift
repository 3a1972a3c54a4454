/// Identity Toolkit's answer to `GET v2/passwordPolicy`: the project's (or a tenant's) password policy, as Firebase's
/// JavaScript SDK reads it for `validatePassword`. A field the service leaves out is `nil`.
package struct PasswordPolicyAnswer: Decodable, Hashable, Sendable {
    /// What a password must have.
    package struct CustomStrengthOptions: Decodable, Hashable, Sendable {
        package var minPasswordLength: Int?
        package var maxPasswordLength: Int?
        package var containsLowercaseCharacter: Bool?
        package var containsUppercaseCharacter: Bool?
        package var containsNumericCharacter: Bool?
        package var containsNonAlphanumericCharacter: Bool?
    }

    package var customStrengthOptions: CustomStrengthOptions?
    /// The characters that count as non-alphanumeric, one a string.
    package var allowedNonAlphanumericCharacters: [String]?
    /// `OFF`, `ENFORCE` or `ENFORCEMENT_STATE_UNSPECIFIED`.
    package var enforcementState: String?
    package var forceUpgradeOnSignin: Bool?
    package var schemaVersion: Int?

    /// A project's without a policy: no option set, not enforced, schema 1 (Firebase's JavaScript SDK then checks a
    /// password against Firebase's own minimum, six characters).
    package static let none = PasswordPolicyAnswer(
        customStrengthOptions: CustomStrengthOptions(), allowedNonAlphanumericCharacters: nil, enforcementState: "OFF",
        forceUpgradeOnSignin: false, schemaVersion: 1)
}
