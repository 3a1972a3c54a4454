/// What an ``Auth`` sends with each request besides the request's own fields: the tenant
/// (``Auth/tenantID``) on the requests that take one, and the language of emails and messages
/// (``Auth/languageCode``), as the `X-Firebase-Locale` header; the App Check token, as `X-Firebase-AppCheck`.
package struct AuthRequestContext: Hashable, Sendable {
    /// The Identity Platform tenant, or `nil` for the project's own users.
    package var tenantID: String?
    /// A BCP 47 language code such as `fr` or `pt-BR`, or `nil` for the project's default.
    package var languageCode: String?
    /// Where the request's App Check token comes from, or `nil` for none (no provider factory set).
    package var appCheck: AppCheckHeader?

    package init(tenantID: String? = nil, languageCode: String? = nil, appCheck: AppCheckHeader? = nil) {
        self.tenantID = tenantID
        self.languageCode = languageCode
        self.appCheck = appCheck
    }
}

/// The App Check token of a request: the app's ``AppCheck`` (its token, or the placeholder when it has none), or a
/// token given with a broker call.
package enum AppCheckHeader: Hashable, Sendable {
    case appCheck(AppCheck)
    case token(String)

    /// The `X-Firebase-AppCheck` value: a given token that cannot be a header's is sent as the placeholder.
    func value() async -> String {
        switch self {
        case .appCheck(let appCheck): return await appCheck.tokenForAuthRequest()
        case .token(let token):
            return AppCheckToken.isSendable(token) ? token : AppCheck.placeholderToken
        }
    }
}
