import Foundation

/// An Identity Toolkit tenant (`projects/{p}/tenants/{t}`), in the fields of its REST resource. The emulator
/// keeps its settings and lists them, and applies `disableAuth`, `allowPasswordSignup`, `enableEmailLinkSignin`,
/// `enableAnonymousUser` and the second factors' `mfaConfig` as firebase-tools does.
struct EmulatorTenant: Sendable {
    var tenantId: String
    var displayName: String?
    var allowPasswordSignup = false
    var enableEmailLinkSignin = false
    var enableAnonymousUser = false
    var disableAuth = false
    var mfaState = "DISABLED"
    var mfaProviders: [String] = []
    /// Whether `mfaConfig.providerConfigs` enables TOTP, as production's tenants enable it.
    var totpEnabled = false

    /// Whether an app of the tenant may enroll and use second factors: `mfaConfig.state` on and a factor enabled,
    /// `PHONE_SMS` in `enabledProviders` (as firebase-tools requires) or a TOTP provider config.
    var allowsSecondFactors: Bool {
        ["ENABLED", "MANDATORY"].contains(mfaState) && (mfaProviders.contains("PHONE_SMS") || totpEnabled)
    }

    /// Whether an app of the tenant may enroll and use SMS second factors: `mfaConfig.state` on and `PHONE_SMS` in
    /// `enabledProviders`.
    var allowsSMSSecondFactors: Bool { ["ENABLED", "MANDATORY"].contains(mfaState) && mfaProviders.contains("PHONE_SMS") }

    /// A tenant first named by an account call, with everything enabled, as Firebase's emulator makes it.
    static func implicit(_ tenantId: String) -> EmulatorTenant {
        EmulatorTenant(
            tenantId: tenantId, allowPasswordSignup: true, enableEmailLinkSignin: true, enableAnonymousUser: true,
            mfaState: "ENABLED", mfaProviders: ["PHONE_SMS"])
    }

    /// Throws `message` unless the tenant's sign-in `setting` is on.
    func require(_ setting: KeyPath<EmulatorTenant, Bool>, _ message: String) throws(EmulatorFailure) {
        guard self[keyPath: setting] else { throw EmulatorFailure(message) }
    }

    /// The tenant's fields, as `tenants.get` answers.
    func fields(projectID: String) -> [String: Any] {
        var fields: [String: Any] = [
            "tenantId": tenantId, "name": "projects/\(projectID)/tenants/\(tenantId)", "allowPasswordSignup": allowPasswordSignup,
            "enableEmailLinkSignin": enableEmailLinkSignin, "enableAnonymousUser": enableAnonymousUser, "disableAuth": disableAuth,
            "mfaConfig": totpEnabled
                ? ["state": mfaState, "enabledProviders": mfaProviders, "providerConfigs": [["state": "ENABLED", "totpProviderConfig": [:]]]]
                : ["state": mfaState, "enabledProviders": mfaProviders],
        ]
        fields["displayName"] = displayName
        return fields
    }

    /// Takes the settings of `fields`: those named by `mask` (`updateMask`'s paths), or, without a mask, all of
    /// them, a setting left out going back to its default.
    mutating func apply(_ fields: RequestFields, mask: UpdateMask?) throws(EmulatorFailure) {
        func chosen(_ path: String) -> Bool { mask.sets(path) }
        func flag(_ name: String, _ current: Bool) throws(EmulatorFailure) -> Bool {
            guard chosen(name) else { return current }
            return try fields.bool(name) ?? (mask == nil ? false : current)
        }
        if chosen("displayName") {
            let name = try fields.string("displayName")
            if let name, name.count > 100 { throw EmulatorFailure("INVALID_TENANT_DISPLAY_NAME : at most 100 characters") }
            if name != nil || mask == nil { displayName = name }
        }
        allowPasswordSignup = try flag("allowPasswordSignup", allowPasswordSignup)
        enableEmailLinkSignin = try flag("enableEmailLinkSignin", enableEmailLinkSignin)
        enableAnonymousUser = try flag("enableAnonymousUser", enableAnonymousUser)
        disableAuth = try flag("disableAuth", disableAuth)
        let mfa = try fields.object("mfaConfig")
        if chosen("mfaConfig.state") {
            let state = try mfa?.string("state")
            if let state, !["DISABLED", "ENABLED", "MANDATORY", "STATE_UNSPECIFIED"].contains(state) {
                throw EmulatorFailure("INVALID_ARGUMENT : Invalid value at 'mfa_config.state'")
            }
            if state != nil || mask == nil { mfaState = state ?? "DISABLED" }
        }
        if chosen("mfaConfig.enabledProviders"), let mfa, mfa.has("enabledProviders") || mask == nil {
            mfaProviders = try mfa.strings("enabledProviders")
        } else if mask == nil {
            mfaProviders = []
        }
        if chosen("mfaConfig.providerConfigs"), let mfa, mfa.has("providerConfigs") || mask == nil {
            totpEnabled = false
            for config in try mfa.objects("providerConfigs") where config.has("totpProviderConfig") {
                if try config.string("state") == "ENABLED" { totpEnabled = true }
            }
        } else if mask == nil {
            totpEnabled = false
        }
    }
}
