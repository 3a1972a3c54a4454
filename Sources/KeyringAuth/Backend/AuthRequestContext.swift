/// What an ``Auth`` sends with each request besides the request's own fields: the tenant
/// (``Auth/tenantID``) on the requests that take one, and the language of emails and messages
/// (``Auth/languageCode``), as the `X-Firebase-Locale` header.
package struct AuthRequestContext: Hashable, Sendable {
    /// The Identity Platform tenant, or `nil` for the project's own users.
    package var tenantID: String?
    /// A BCP 47 language code such as `fr` or `pt-BR`, or `nil` for the project's default.
    package var languageCode: String?

    package init(tenantID: String? = nil, languageCode: String? = nil) {
        self.tenantID = tenantID
        self.languageCode = languageCode
    }
}
