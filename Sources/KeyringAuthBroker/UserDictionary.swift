import KeyringAuth

/// A user as the broker sends it: an `a{sv}` of what an app shows and decides on, keys absent when
/// empty, an empty dictionary for nobody. It carries the user's tokens, the group's own: a caller allowed the scope
/// may read the group's item anyway (a Swift app from the keychain, a sandboxed one through `Keychain1`). The ID token
/// makes each refresh a change of the dictionary, so that watchers hear of it (`UserChanged`).
enum UserDictionary {
    static func values(of user: User?) -> [String: GVariants.Value] {
        guard let user else { return [:] }
        var values: [String: GVariants.Value] = [
            "uid": .string(user.uid), "isAnonymous": .bool(user.isAnonymous), "emailVerified": .bool(user.isEmailVerified),
            "providerID": .string(user.providerID),
        ]
        let optional: [String: String?] = [
            "email": user.email, "displayName": user.displayName, "phoneNumber": user.phoneNumber,
            "photoURL": user.photoURL?.absoluteString, "tenantID": user.tenantID,
            "providers": user.providerData.map(\.providerID).sorted().joined(separator: ","),
        ]
        for case let (key, value?) in optional where !value.isEmpty { values[key] = .string(value) }
        let metadata = user.metadata
        let dates = ["creationDate": metadata.creationDate, "lastSignInDate": metadata.lastSignInDate]
        for case let (key, date?) in dates { values[key] = .int64(Int64(date.timeIntervalSince1970.rounded(.down))) }
        if let refreshToken = user.refreshToken, !refreshToken.isEmpty { values["refreshToken"] = .string(refreshToken) }
        if !user.storedIDToken.isEmpty { values["idToken"] = .string(user.storedIDToken) }
        let factors = user.multiFactor.enrolledFactors
        if !factors.isEmpty { values["secondFactors"] = .dictionaries(factors.map(values(of:))) }
        return values
    }

    /// A second factor as the broker sends it: `uid`, `factorID`, `enrollmentDate` (Unix seconds), `displayName` when set,
    /// `phoneNumber` of an SMS factor (masked in a sign-in's factors, as Firebase lists them).
    static func values(of factor: MultiFactorInfo) -> [String: GVariants.Value] {
        var values: [String: GVariants.Value] = [
            "uid": .string(factor.uid), "factorID": .string(factor.factorID),
            "enrollmentDate": .int64(Int64(factor.enrollmentDate.timeIntervalSince1970.rounded(.down))),
        ]
        if let name = factor.displayName, !name.isEmpty { values["displayName"] = .string(name) }
        if let phone = factor as? PhoneMultiFactorInfo { values["phoneNumber"] = .string(phone.phoneNumber) }
        return values
    }

    /// The `a{sv}` of `user`, floating.
    static func variant(of user: User?) -> OpaquePointer {
        GVariants.dictionary(values(of: user))
    }
}
