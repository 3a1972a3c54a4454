import Foundation

// Routing a request to its operation: the apps' `accounts:` and `token` calls here, the Admin API's and the emulator's
// own in EmulatorService+AdminRouting, the legacy `v3` paths in EmulatorService+LegacyRoutes; and what each request asked.
extension EmulatorService {
    static let identityToolkit = "/identitytoolkit.googleapis.com/v1/"
    private static let secureToken = "/securetoken.googleapis.com/v1/token"

    func handle(_ request: EmulatorRequest) -> EmulatorResponse {
        do throws(EmulatorFailure) {
            return try route(request)
        } catch {
            return error.response(secureTokenShape: request.path == Self.secureToken || request.path.hasPrefix(Self.appCheckProjects))
        }
    }

    private func route(_ request: EmulatorRequest) throws(EmulatorFailure) -> EmulatorResponse {
        switch (request.method, request.path) {
        case ("GET", "/"):
            return .json(["authEmulator": ["ready": true, "projectId": projectID]])
        case ("GET", "/emulator/action"):
            return actionPage(request.query)
        case ("GET", Self.idpPagePath):
            return idpPage(request.query)
        case ("GET", Self.idpAnswerPath):
            return idpAnswer(request.query)
        case (_, let path) where path.hasPrefix(Self.standInRecaptchaPath):
            return standInRecaptcha(request)
        case ("GET", Self.identityToolkit + "recaptchaParams"):
            try requireAPIKey(request)
            receive("recaptchaParams", RequestFields(values: request.query), request)
            return .json(recaptchaParams())
        case ("GET", Self.identityToolkitV2 + "recaptchaConfig"):
            try requireAPIKey(request)
            receive("recaptchaConfig", RequestFields(values: request.query), request)
            return .json(try recaptchaConfig())
        case (_, let path) where path.hasPrefix(Self.legacyRelyingParty):
            guard let rewritten = try v1Request(forLegacy: request) else { throw EmulatorFailure.notFound(request) }
            return try route(rewritten)
        case (_, let path) where path.hasPrefix(Self.emulatorProjects):
            return try routeEmulatorAPI(request, path.dropFirst(Self.emulatorProjects.count))
        case (_, let path) where path.hasPrefix(Self.identityToolkit + "projects/"):
            return try routeAdminAccounts(request, path.dropFirst(Self.identityToolkit.count + "projects/".count))
        case (_, let path) where path.hasPrefix(Self.identityToolkitV2 + "projects/"):
            return try routeAdminProject(request, path.dropFirst(Self.identityToolkitV2.count + "projects/".count))
        case (_, let path) where path.hasPrefix(Self.appCheckProjects):
            return try routeAppCheck(request, path.dropFirst(Self.appCheckProjects.count))
        case ("POST", Self.secureToken):
            try requireAPIKey(request)
            let fields = try request.fields()
            receive("token", fields, request)
            return .json(try refresh(fields))
        case ("POST", let path) where path.hasPrefix(Self.identityToolkit + "accounts:"):
            let caller = try caller(of: request)
            let operation = path.dropFirst(Self.identityToolkit.count + "accounts:".count)
            // Before anything of the request is read, as Identity Platform checks App Check.
            if caller == .app { try requireAppCheck(for: operation, request) }
            let fields = try request.fields()
            receive(String(path.dropFirst(Self.identityToolkit.count)), fields, request)
            if caller != .admin, fields.has("targetProjectId") {
                throw EmulatorFailure("INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
            }
            // The Admin SDKs' calls without a project in the path.
            if caller == .admin, Self.adminOperations.contains(String(operation)) {
                return try adminOperation(String(operation), fields, request, tenant: try tenantScope(path: nil, fields))
            }
            // A tenant named in the body is checked before anything of the request, as firebase-tools checks it.
            let tenant = try clientTenant(fields)
            switch operation {
            case "createAuthUri": return .json(try createAuthUri(fields, tenant: tenant?.tenantId, host: request.headers["host"]))
            case "signUp": return .json(try signUp(fields, tenantSettings: tenant))
            case "signInWithPassword":
                try tenant?.require(\.allowPasswordSignup, "PASSWORD_LOGIN_DISABLED")
                return .json(try signIn(fields))
            case "signInWithIdp": return .json(try signInWithIdp(fields))
            case "signInWithCustomToken": return .json(try signInWithCustomToken(fields))
            case "sendOobCode": return .json(try sendOutOfBandCode(fields, request, tenantSettings: tenant))
            case "resetPassword":
                try tenant?.require(\.allowPasswordSignup, "PASSWORD_LOGIN_DISABLED")
                return .json(try resetPassword(fields))
            case "signInWithEmailLink":
                try tenant?.require(\.enableEmailLinkSignin, "OPERATION_NOT_ALLOWED")
                return .json(try signInWithEmailLink(fields))
            case "sendVerificationCode": return .json(try sendVerificationCode(fields, tenant: tenant))
            case "signInWithPhoneNumber": return .json(try signInWithPhoneNumber(fields, tenant: tenant))
            case "lookup": return .json(try lookUp(fields))
            case "update": return .json(try update(fields, host: request.headers["host"]))
            case "delete": return .json(try delete(fields))
            default: throw EmulatorFailure.notFound(request)
            }
        case ("POST", let path) where path.hasPrefix(Self.identityToolkitV2 + "accounts/"):
            _ = try caller(of: request)
            let fields = try request.fields()
            let operation = path.dropFirst(Self.identityToolkitV2.count + "accounts/".count)
            receive(String(operation), fields, request)
            if let tenant = try clientTenant(fields), operation != "mfaEnrollment:withdraw" {
                // firebase-tools' refusal of an SMS factor's operation; a TOTP one is refused where no factor is enabled.
                if Self.isSMSOperation(operation, fields), !tenant.allowsSMSSecondFactors {
                    throw EmulatorFailure("OPERATION_NOT_ALLOWED : SMS based MFA not enabled.")
                }
                guard tenant.allowsSecondFactors else {
                    throw EmulatorFailure(
                        "OPERATION_NOT_ALLOWED : no second factor is enabled for this tenant (mfaConfig: state ENABLED, and PHONE_SMS in enabledProviders or a TOTP providerConfig).")
                }
            }
            return .json(try routeMultiFactor(operation, fields))
        default:
            throw EmulatorFailure.notFound(request)
        }
    }

    static let maximumReceivedRequests = 1000

    /// Keeps what a request asked, for ``AuthEmulator/receivedRequests``: its operation, tenant and language.
    func receive(_ operation: String, _ fields: RequestFields, _ request: EmulatorRequest, tenant: String? = nil) {
        let received = AuthEmulator.ReceivedRequest(
            operation: operation, tenantID: tenant ?? fields.values["tenantId"] as? String,
            languageCode: request.headers["x-firebase-locale"], appVerification: AuthEmulator.ReceivedRequest.appVerification(of: fields.values),
            appCheckAppID: appCheckApp(of: request))
        state.withLock { state in
            state.received.append(received)
            if state.received.count > Self.maximumReceivedRequests { state.received.removeFirst() }
        }
    }

    var receivedRequests: [AuthEmulator.ReceivedRequest] { state.withLock { $0.received } }

    private func requireAPIKey(_ request: EmulatorRequest) throws(EmulatorFailure) {
        guard request.apiKey != nil else { throw Self.missingAPIKey }
    }

    static let missingAPIKey = EmulatorFailure("The request is missing a valid API key.", status: 403, grpcStatus: "PERMISSION_DENIED")
}
