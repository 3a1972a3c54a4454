import Foundation

/// Who sent a request: an app, with an API key, or an administrator: `Authorization: Bearer owner`, which
/// Google's Admin SDKs send to an emulator (or a `ya29.` access token, as Firebase's emulator also takes).
enum EmulatorCaller: Sendable {
    case app
    case admin
}

// The Admin API's routes, as Firebase's Auth emulator serves them: `projects/{p}[/tenants/{t}]/accounts…` (v1),
// `projects/{p}/tenants…` and `projects/{p}/config` (v2), and the emulator's own `/emulator/v1/projects/{p}/…`.
extension EmulatorService {
    static let emulatorProjects = "/emulator/v1/projects/"
    static let maximumTenants = 1000
    /// The account operations an administrator may call, by their REST names (`create`: `POST …/accounts`).
    static let adminOperations: Set<String> = [
        "create", "signUp", "lookup", "update", "delete", "batchGet", "batchCreate", "batchDelete", "query", "sendOobCode",
    ]

    /// The caller of an Identity Toolkit request.
    ///
    /// - Throws: 401 `UNAUTHENTICATED` for a bearer token other than `owner` (even with an API key, as Google
    ///   answers a bad credential); 403 when there is neither a bearer token nor an API key.
    func caller(of request: EmulatorRequest) throws(EmulatorFailure) -> EmulatorCaller {
        if let authorization = request.headers["authorization"], authorization.lowercased().hasPrefix("bearer ") {
            let token = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
            guard token.lowercased() == "owner" || token.hasPrefix("ya29.") else {
                throw EmulatorFailure(
                    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other "
                        + "valid authentication credential. The emulator takes `Authorization: Bearer owner`, which the Admin "
                        + "SDKs send when FIREBASE_AUTH_EMULATOR_HOST is set.", status: 401, grpcStatus: "UNAUTHENTICATED")
            }
            return .admin
        }
        guard request.apiKey != nil else { throw Self.missingAPIKey }
        return .app
    }

    /// Refuses a project other than the emulator's, saying how to make them agree.
    func checkProject(_ project: Substring) throws(EmulatorFailure) {
        guard project != projectID else { return }
        throw EmulatorFailure(
            "INVALID_PROJECT_ID : this emulator serves project \(projectID), not \(project.prefix(128)); start it with "
                + "--project-id \(project.prefix(128)), or give the Admin SDK the project ID \(projectID)")
    }

    /// The tenant a request is for: the path's, else the body's `tenantId`; made on first use, as Firebase's
    /// emulator makes it.
    ///
    /// - Throws: `TENANT_ID_MISMATCH` when the path and the body name different tenants; `INVALID_TENANT_ID`;
    ///   `PROJECT_DISABLED` for a tenant with `disableAuth`.
    func tenantScope(path pathTenant: String?, _ fields: RequestFields) throws(EmulatorFailure) -> String? {
        let bodyTenant = try fields.string("tenantId")
        if let pathTenant, let bodyTenant, pathTenant != bodyTenant { throw EmulatorFailure("TENANT_ID_MISMATCH") }
        guard let tenant = pathTenant ?? bodyTenant else { return nil }
        try state.withLock { state throws(EmulatorFailure) in
            let found = try Self.tenant(tenant, in: &state)
            if found.disableAuth { throw EmulatorFailure("PROJECT_DISABLED") }
        }
        return tenant
    }

    /// The tenant an app's call names in its body, checked before anything else of the call, as firebase-tools
    /// checks it (`PROJECT_DISABLED` for a tenant with `disableAuth`); `nil` for the project's own calls.
    func clientTenant(_ fields: RequestFields) throws(EmulatorFailure) -> EmulatorTenant? {
        guard let id = try tenantScope(path: nil, fields) else { return nil }
        return state.withLock { $0.tenants[id] }
    }

    /// The tenant `id`, made with everything enabled when it is new.
    static func tenant(_ id: String, in state: inout State) throws(EmulatorFailure) -> EmulatorTenant {
        if let tenant = state.tenants[id] { return tenant }
        guard (1...128).contains(id.utf8.count), id.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0)
            || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { throw EmulatorFailure("INVALID_TENANT_ID : letters, digits and '-', at most 128") }
        guard state.tenants.count < maximumTenants else {
            throw EmulatorFailure("QUOTA_EXCEEDED : the emulator holds \(maximumTenants) tenants")
        }
        let tenant = EmulatorTenant.implicit(id)
        state.tenants[id] = tenant
        return tenant
    }

    /// `/identitytoolkit.googleapis.com/v1/projects/` then `{p}/accounts[:op]`, `{p}/tenants/{t}/accounts[:op]`
    /// or `{p}:queryAccounts`, `{p}:createSessionCookie`.
    func routeAdminAccounts(_ request: EmulatorRequest, _ rest: Substring) throws(EmulatorFailure) -> EmulatorResponse {
        guard try caller(of: request) == .admin else {
            throw EmulatorFailure("INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
        }
        let project = rest.prefix { $0 != "/" && $0 != ":" }
        try checkProject(project)
        var remainder = rest.dropFirst(project.count)
        var pathTenant: String?
        if remainder.hasPrefix("/tenants/") {
            let tenant = remainder.dropFirst("/tenants/".count).prefix { $0 != "/" && $0 != ":" }
            pathTenant = String(tenant)
            remainder = remainder.dropFirst("/tenants/".count + tenant.count)
        }
        if remainder == ":createSessionCookie" && pathTenant == nil {
            guard request.method == "POST" else { throw EmulatorFailure.methodNotAllowed(request) }
            let fields = try request.fields()
            receive("createSessionCookie", fields, request)
            return .json(try createSessionCookie(fields))
        }
        let operation: String
        if remainder == "/accounts" {
            operation = "create"
        } else if remainder.hasPrefix("/accounts:") {
            operation = String(remainder.dropFirst("/accounts:".count))
        } else if remainder == ":queryAccounts" && pathTenant == nil {
            operation = "query"
        } else {
            throw EmulatorFailure.notFound(request)
        }
        guard Self.adminOperations.contains(operation), operation != "signUp" else { throw EmulatorFailure.notFound(request) }
        guard request.method == (operation == "batchGet" ? "GET" : "POST") else { throw EmulatorFailure.methodNotAllowed(request) }
        let fields = operation == "batchGet" ? RequestFields(values: request.query) : try request.fields()
        let tenant = try tenantScope(path: pathTenant, fields)
        receive(operation, fields, request, tenant: tenant)
        return try adminOperation(operation, fields, request, tenant: tenant)
    }

    func adminOperation(_ operation: String, _ fields: RequestFields, _ request: EmulatorRequest, tenant: String?) throws(EmulatorFailure)
        -> EmulatorResponse
    {
        // An ID token of another tenant than the call's, as firebase-tools refuses it.
        if let token = try fields.string("idToken"), let claims = UnsignedIDToken(decoding: token, projectID: projectID),
            claims.tenantID != tenant
        {
            throw EmulatorFailure("TENANT_ID_MISMATCH")
        }
        switch operation {
        case "create", "signUp": return .json(try adminCreate(fields, tenant: tenant))
        case "lookup": return .json(try adminLookUp(fields, tenant: tenant))
        case "update": return .json(try adminUpdate(fields, tenant: tenant, host: request.headers["host"]))
        case "delete": return .json(try adminDelete(fields, tenant: tenant))
        case "batchGet": return .json(try batchGet(fields, tenant: tenant))
        case "batchCreate": return .json(try batchCreate(fields, tenant: tenant))
        case "batchDelete": return .json(try batchDelete(fields, tenant: tenant))
        case "query": return .json(try query(fields, tenant: tenant))
        default: return .json(try sendOutOfBandCode(fields, request, caller: .admin, tenant: tenant))
        }
    }

    /// `/identitytoolkit.googleapis.com/v2/projects/` then `{p}/tenants[/{t}]` or `{p}/config`.
    func routeAdminProject(_ request: EmulatorRequest, _ rest: Substring) throws(EmulatorFailure) -> EmulatorResponse {
        guard try caller(of: request) == .admin else {
            throw EmulatorFailure("INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
        }
        let project = rest.prefix { $0 != "/" }
        try checkProject(project)
        let remainder = rest.dropFirst(project.count)
        switch (request.method, remainder) {
        case ("GET", "/config"):
            return .json(configFields(withBlockingFunctions: true))
        case ("PATCH", "/config"):
            return .json(try patchConfig(try request.fields(), withBlockingFunctions: true, mask: request.query["updateMask"]))
        case (_, "/config"):
            throw EmulatorFailure.methodNotAllowed(request)
        case ("GET", "/tenants"):
            return .json(try listTenants(RequestFields(values: request.query)))
        case ("POST", "/tenants"):
            return .json(try createTenant(try request.fields()))
        case (_, "/tenants"):
            throw EmulatorFailure.methodNotAllowed(request)
        case (let method, let path) where path.hasPrefix("/tenants/") && !path.dropFirst("/tenants/".count).contains("/"):
            let id = String(path.dropFirst("/tenants/".count))
            switch method {
            case "GET": return .json(try state.withLock { state throws(EmulatorFailure) in try Self.tenant(id, in: &state) }.fields(projectID: projectID))
            case "PATCH": return .json(try patchTenant(id, try request.fields(), mask: request.query["updateMask"]))
            case "DELETE":
                state.withLock { state in
                    for account in state.accounts.values where account.tenantId == id { Self.remove(account, from: &state) }
                    state.tenants[id] = nil
                }
                return .json([:])
            default: throw EmulatorFailure.methodNotAllowed(request)
            }
        default:
            throw EmulatorFailure.notFound(request)
        }
    }

    /// `/emulator/v1/projects/` then `{p}[/tenants/{t}]/accounts` (DELETE), `{p}[/tenants/{t}]/oobCodes` and
    /// `…/verificationCodes` (GET), `{p}/config` (GET, PATCH). The emulator's own API: no credential needed, as in Firebase's emulator.
    func routeEmulatorAPI(_ request: EmulatorRequest, _ rest: Substring) throws(EmulatorFailure) -> EmulatorResponse {
        let project = rest.prefix { $0 != "/" }
        try checkProject(project)
        var remainder = rest.dropFirst(project.count)
        var tenant: String?
        if remainder.hasPrefix("/tenants/") {
            let id = remainder.dropFirst("/tenants/".count).prefix { $0 != "/" }
            tenant = String(id)
            remainder = remainder.dropFirst("/tenants/".count + id.count)
        }
        switch (request.method, remainder) {
        case ("DELETE", "/accounts"):
            if let tenant {
                state.withLock { state in
                    for account in state.accounts.values where account.tenantId == tenant { Self.remove(account, from: &state) }
                }
            } else {
                removeAllAccounts()
            }
            return .json([:])
        case ("GET", "/oobCodes"):
            let codes = state.withLock { state in state.oobCodes.filter { $0.tenantID == tenant }.map(\.code) }
            return .json(["oobCodes": codes.map(\.listFields)])
        case ("GET", "/verificationCodes"):
            return .json(verificationCodeList(tenant: tenant))
        case ("GET", "/config") where tenant == nil:
            return .json(configFields(withBlockingFunctions: false))
        case ("PATCH", "/config") where tenant == nil:
            return .json(try patchConfig(try request.fields(), withBlockingFunctions: false, mask: nil))
        case (_, "/accounts"), (_, "/oobCodes"), (_, "/verificationCodes"), (_, "/config"):
            throw EmulatorFailure.methodNotAllowed(request)
        default:
            throw EmulatorFailure.notFound(request)
        }
    }

    // MARK: Configuration

    /// The project's sign-in settings, in the fields of Identity Toolkit's project config.
    private func configFields(withBlockingFunctions: Bool) -> [String: Any] {
        state.withLock { state in
            var fields: [String: Any] = [
                "signIn": ["allowDuplicateEmails": state.settings.allowsDuplicateEmails],
                "emailPrivacyConfig": ["enableImprovedEmailPrivacy": state.settings.emailEnumerationProtection],
            ]
            if withBlockingFunctions {
                fields["blockingFunctions"] = state.forwardInboundCredentials.isEmpty
                    ? [String: Any]() : ["forwardInboundCredentials": state.forwardInboundCredentials]
            }
            return fields
        }
    }

    /// Takes `signIn.allowDuplicateEmails`, `emailPrivacyConfig.enableImprovedEmailPrivacy`
    /// (``AuthEmulator/Settings/emailEnumerationProtection``) and, on the Admin API,
    /// `blockingFunctions.forwardInboundCredentials`. The Admin API's `PATCH` sets what `mask` (`updateMask`'s
    /// paths) names, or, without one, everything, a setting left out going back to its default; the emulator's
    /// own sets what the body has, as firebase-tools does. Blocking functions' triggers are checked, then refused:
    /// the emulator calls no function.
    private func patchConfig(_ fields: RequestFields, withBlockingFunctions: Bool, mask: String?) throws(EmulatorFailure) -> [String: Any] {
        let updateMask = UpdateMask(mask)
        let fullUpdate = withBlockingFunctions && updateMask == nil
        /// A setting to take: the body's, or on a full update its default; `nil` to leave it.
        func setting(_ object: String, _ name: String) throws(EmulatorFailure) -> Bool? {
            guard updateMask.sets("\(object).\(name)") else { return nil }
            return try fields.object(object)?.bool(name) ?? (fullUpdate ? false : nil)
        }
        let duplicates = try setting("signIn", "allowDuplicateEmails")
        let privacy = try setting("emailPrivacyConfig", "enableImprovedEmailPrivacy")
        var forward: [String: Bool]?
        if withBlockingFunctions, updateMask.reaches("blockingFunctions") {
            let functions = try fields.object("blockingFunctions")
            if let triggers = try functions?.object("triggers"), !triggers.values.isEmpty {
                // Checked as firebase-tools checks them, then refused: the emulator calls no blocking function.
                for (event, value) in triggers.values.sorted(by: { $0.key < $1.key }) {
                    guard ["beforeCreate", "beforeSignIn"].contains(event) else {
                        throw EmulatorFailure("INVALID_BLOCKING_FUNCTION : ((Event type is invalid.))")
                    }
                    let uri = (value as? [String: Any])?["functionUri"] as? String
                    guard let uri, Self.isAbsoluteURI(uri) else {
                        throw EmulatorFailure("INVALID_BLOCKING_FUNCTION : ((Expected an absolute URI with valid scheme and host.))")
                    }
                }
                throw EmulatorFailure.notImplemented("blockingFunctions triggers are not implemented in this emulator.")
            }
            if let credentials = try functions?.object("forwardInboundCredentials") {
                forward = [:]
                for name in ["idToken", "accessToken", "refreshToken"] {
                    if updateMask.sets("blockingFunctions.forwardInboundCredentials.\(name)"), let value = try credentials.bool(name) {
                        forward?[name] = value
                    }
                }
            } else if fullUpdate {
                forward = [:]
            }
        }
        state.withLock { state in
            if let duplicates { state.settings.allowsDuplicateEmails = duplicates }
            if let privacy { state.settings.emailEnumerationProtection = privacy }
            if let forward { state.forwardInboundCredentials = updateMask == nil ? forward : state.forwardInboundCredentials.merging(forward) { _, new in new } }
        }
        return configFields(withBlockingFunctions: withBlockingFunctions)
    }

    // MARK: Tenants

    private func createTenant(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        var tenant = EmulatorTenant(tenantId: "")
        try tenant.apply(fields, mask: nil)
        return try state.withLock { state throws(EmulatorFailure) in
            guard state.tenants.count < Self.maximumTenants else {
                throw EmulatorFailure("QUOTA_EXCEEDED : the emulator holds \(Self.maximumTenants) tenants")
            }
            tenant.tenantId = EmulatorAccount.randomID(length: 28)
            state.tenants[tenant.tenantId] = tenant
            return tenant.fields(projectID: projectID)
        }
    }

    private func patchTenant(_ id: String, _ fields: RequestFields, mask: String?) throws(EmulatorFailure) -> [String: Any] {
        if let bodyID = try fields.string("tenantId"), bodyID != id { throw EmulatorFailure("TENANT_ID_MISMATCH") }
        return try state.withLock { state throws(EmulatorFailure) in
            var tenant = try Self.tenant(id, in: &state)
            try tenant.apply(fields, mask: UpdateMask(mask))
            state.tenants[id] = tenant
            return tenant.fields(projectID: projectID)
        }
    }

    /// Tenants by ID, a page of `pageSize` (default 20, at most 1000) after `pageToken` (the last ID of the page before).
    private func listTenants(_ fields: RequestFields) throws(EmulatorFailure) -> [String: Any] {
        let tenants = state.withLock { Array($0.tenants.values) }
        let (page, next) = Self.page(of: tenants, by: \.tenantId, size: try fields.integer("pageSize"), after: try fields.string("pageToken"))
        var reply: [String: Any] = ["tenants": page.map { $0.fields(projectID: projectID) }]
        reply["nextPageToken"] = next
        return reply
    }

    /// One page of `items` in the byte order of their `key`: those after `token` (the last key of the page before),
    /// `size` of them (``pageSize(_:)``), and the token of the next page when the page is full.
    static func page<Item>(of items: [Item], by key: (Item) -> String, size requested: Int64?, after token: String?) -> ([Item], String?) {
        let size = pageSize(requested)
        let following = items.sorted { key($0).utf8.lexicographicallyPrecedes(key($1).utf8) }
            .filter { item in token.map { $0.utf8.lexicographicallyPrecedes(key(item).utf8) } ?? true }
        // A full page carries a token even when nothing follows (the next page is then empty), as in firebase-tools.
        return (Array(following.prefix(size)), following.count >= size ? key(following[size - 1]) : nil)
    }

    /// A page size as Firebase's emulator takes it: 20 when not given (or not above 0), at most 1000.
    static func pageSize(_ requested: Int64?) -> Int {
        guard let requested, requested > 0 else { return 20 }
        return Int(min(requested, 1000))
    }
}
