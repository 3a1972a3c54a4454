import Foundation

// Firebase's per-instance request settings: the tenant users sign in to, and the language of the
// service's messages, sent with every request (`AuthRequestContext`).
extension Auth {
    /// The Identity Platform tenant that sign-ins go to, as Firebase's `Auth.tenantID`: sent with
    /// every request that takes one (sign-up, every sign-in, linking, `accounts:update`). It starts
    /// as ``AuthAppOptions/tenantID``; setting it changes where later sign-ins go and leaves the current
    /// user signed in. A user of another tenant is refused by ``updateCurrentUser(_:)`` and by the
    /// group's stored state (``AuthErrorCode/tenantIDMismatch``), so every app of a group should use
    /// the same tenant.
    public var tenantID: String? {
        get { state.withLock { $0.tenantID } }
        set { state.withLock { $0.tenantID = newValue?.isEmpty == true ? nil : newValue } }
    }

    /// The language of the identity service's emails and messages, a BCP 47 code such as `fr` or
    /// `pt-BR`, as Firebase's `Auth.languageCode`: sent as the `X-Firebase-Locale` header of every
    /// request. `nil` (the default) sends none: the project's default language. A value that is not
    /// letters, digits, `-` and `_` (at most 35 characters) is not sent.
    public var languageCode: String? {
        get { state.withLock { $0.languageCode } }
        set { state.withLock { $0.languageCode = newValue?.isEmpty == true ? nil : newValue } }
    }

    /// Sets ``languageCode`` to the language of the app's locale, as Firebase's `useAppLanguage()`:
    /// on Linux the POSIX locale variables, in their order of precedence (`LC_ALL`, then `LC_MESSAGES`,
    /// then `LANG`), for example `pt_BR.UTF-8` → `pt-BR`. `C`, `POSIX` or none of them set leaves
    /// ``languageCode`` `nil`.
    public func useAppLanguage() {
        languageCode = Self.appLanguage(ProcessInfo.processInfo.environment)
    }

    /// The BCP 47 language of the POSIX locale `environment` names, or `nil`.
    static func appLanguage(_ environment: [String: String]) -> String? {
        // The first non-empty variable decides, as setlocale(LC_MESSAGES, "") reads them.
        guard let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty })
        else { return nil }
        // language[_territory][.codeset][@modifier]
        let name = locale.split(separator: ".", maxSplits: 1)[0].split(separator: "@", maxSplits: 1).first.map(String.init) ?? ""
        guard !name.isEmpty, name != "C", name != "POSIX" else { return nil }
        let parts = name.split(separator: "_", maxSplits: 1)
        let language = parts[0].lowercased()
        guard (2...8).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        guard parts.count == 2 else { return language }
        let territory = parts[1].uppercased()
        guard (2...3).contains(territory.count), territory.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            return language
        }
        return "\(language)-\(territory)"
    }

    /// The language of the requests made in the current task, over ``languageCode``: the broker's, whose `Auth`s serve
    /// apps of several languages at once, so that a call's language is that call's, never set on the shared instance.
    @TaskLocal package static var languageCodeOfTask: String?

    /// The App Check token of the requests made in the current task, over the app's ``AppCheck``: the broker's, which
    /// sends each app's own token with its calls.
    @TaskLocal package static var appCheckTokenOfTask: String?

    /// What every request of this instance carries now (in the current task).
    var requestContext: AuthRequestContext {
        state.withLock {
            AuthRequestContext(
                tenantID: $0.tenantID, languageCode: Self.languageCodeOfTask ?? $0.languageCode,
                appCheck: Self.appCheckTokenOfTask.map(AppCheckHeader.token) ?? configuration.appCheck.map(AppCheckHeader.appCheck))
        }
    }
}
