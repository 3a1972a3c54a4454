import Foundation

/// What a sign-in says beyond the user, as Firebase's `AdditionalUserInfo`: the method, the identity
/// provider's profile of the user, and whether the account is new.
public struct AdditionalUserInfo: Sendable {
    /// The sign-in method: `google.com`, `github.com`, … for an identity provider; `password`, `anonymous`
    /// or `custom` for the others.
    public let providerID: String
    /// The identity provider's profile of the user (its `rawUserInfo`), decoded with limits: strings, `Bool`,
    /// `Int`, `Double`, arrays and dictionaries of them; `nil` for the other methods.
    public let profile: [String: any Sendable]?
    /// The user's name at the identity provider (for example a GitHub login), if it has one.
    public let username: String?
    /// Whether this sign-in created the account.
    public let isNewUser: Bool

    /// ``isNewUser``, under the name Firebase keeps for Objective-C.
    public func newUser() -> Bool { isNewUser }

    init(providerID: String, profile: [String: any Sendable]? = nil, username: String? = nil, isNewUser: Bool) {
        self.providerID = providerID
        self.profile = profile
        self.username = username
        self.isNewUser = isNewUser
    }

    /// From an identity provider's answer; a profile that is not a JSON object within the limits is left out.
    init(_ answer: IdentityProviderAnswer, isNewUser: Bool) {
        var profile: [String: any Sendable]?
        if let raw = answer.rawUserInfo, raw.utf8.count <= IDTokenClaims.maximumTokenBytes,
            case .object(let object)? = try? JSONDecoder().decode(JSONClaim.self, from: Data(raw.utf8))
        {
            profile = object.compactMapValues(\.sendableValue)
        }
        self.init(providerID: answer.providerID, profile: profile, username: answer.username, isNewUser: isNewUser)
    }
}
