import Testing

@testable import KeyringAuth

/// `AuthErrorCode.entry`, the one row per code that the names, the server mapping, the CLI's exit code and the
/// broker's error name all read.
@Suite struct AuthErrorCodeTableTests {
    @Test func everyRowHasItsCasesNamesAsFirebaseAndTheCLIPrintThem() throws {
        let firebase = try FirebaseErrorMappingTests.list("firebase-auth-error-names.txt")
        for line in firebase {
            let code = try #require(AuthErrorCode(rawValue: Int(line[0])!), "\(line)")
            #expect(code.entry.name == line[1] && code.entry.userInfoName == line[2], "\(line)")
        }
        for (code, ours) in AuthErrorCodeValueTests.ours {
            #expect(code.entry.userInfoName == ours.1, "\(code)")
        }
        #expect(firebase.count + AuthErrorCodeValueTests.ours.count == AuthErrorCode.allCases.count)
        let codes = AuthErrorCode.allCases
        #expect(codes.allSatisfy { $0.name == $0.entry.name && $0.userInfoName == $0.entry.userInfoName })
        #expect(Set(codes.map(\.entry.name)).count == codes.count)
        #expect(Set(codes.map(\.entry.userInfoName)).count == codes.count)
    }

    @Test func everyServerMessageMeansOneCodeAndTheTableHoldsEachRowsMessages() throws {
        let rows: [(code: AuthErrorCode, server: AuthErrorCode.ServerMessage)] = AuthErrorCode.allCases.flatMap { code in
            code.entry.server.map { (code: code, server: $0) }
        }
        var seen: Set<String> = []
        let repeated = rows.map { $0.server.message }.filter { !seen.insert($0).inserted }
        #expect(repeated.isEmpty, "in two rows: \(repeated)")
        #expect(ServerErrorCode.table.count == rows.count)
        for (code, server) in rows {
            let mapped = try #require(ServerErrorCode.table[server.message], "\(server.message)")
            #expect(mapped.0 == code && mapped.1 == server.advice, "\(server.message)")
        }
    }

    /// A few of the messages the table had before it was made of the rows, with their code and advice.
    @Test func knownMessagesKeepTheirCodeAndAdvice() throws {
        #expect(ServerErrorCode.table.count >= 78)
        let known: [(String, AuthErrorCode, String)] = [
            ("EMAIL_EXISTS", .emailAlreadyInUse, "Another account already uses this email address; sign in instead."),
            ("INVALID_IDENTIFIER", .invalidEmail, "The email address is malformed."),
            ("INVALID_GRANT_TYPE", .internalError, "The token request was malformed; this is a bug in KeyringAuth."),
            ("CONFIGURATION_NOT_FOUND", .operationNotAllowed,
             "Authentication is not set up for this project; enable it in the Firebase console."),
            ("INVALID_TENANT_ID", .invalidConfiguration, "The tenant ID is not valid; check the app's options."),
            ("FORBIDDEN_CLAIM", .invalidCustomToken, "The custom token sets a reserved claim (iss, aud, sub, exp, firebase, …)."),
            ("NEED_CONFIRMATION", .accountExistsWithDifferentCredential,
             "An account already uses this email address with another sign-in method; sign in with it, then link this credential."),
            ("MISSING_IOS_APP_TOKEN", .missingAppToken, "The request needs an APNs token for app verification."),
        ]
        for (message, code, advice) in known {
            let mapped = try #require(ServerErrorCode.table[message], "\(message)")
            #expect(mapped.0 == code && mapped.1 == advice, "\(message)")
            #expect(ServerErrorCode(message: message).authError.code == code)
        }
    }

    @Test func everyDispositionIsUsed() {
        #expect(Set(AuthErrorCode.allCases.map(\.entry.disposition)) == Set(AuthErrorCode.Disposition.allCases))
    }

    /// The codes the CLI reports other than as a refusal by the identity service (exit 5); every other code is one.
    @Test func theDispositionsAreTheCLIsExitCodes() {
        let notRefused: [AuthErrorCode: AuthErrorCode.Disposition] = [
            .keychainError: .keychain, .nullUser: .noUser, .accessGroupChoiceError: .groupChoice, .networkError: .unreachable,
            .tenantIDMismatch: .localFailure, .corruptStoredUser: .localFailure, .providerAlreadyLinked: .localFailure,
            .noSuchProvider: .localFailure, .webContextAlreadyPresented: .localFailure, .webContextCancelled: .localFailure,
            .webInternalError: .localFailure, .webSignInUserInteractionFailure: .localFailure, .malformedJWT: .localFailure,
            .invalidEmail: .invalidInput, .missingEmail: .invalidInput, .missingPassword: .invalidInput, .weakPassword: .invalidInput,
            .invalidConfiguration: .invalidInput, .invalidProviderID: .invalidInput, .invalidClientID: .invalidInput,
        ]
        for code in AuthErrorCode.allCases {
            let expected = notRefused[code] ?? .refused
            #expect(code.entry.disposition == expected, "\(code)")
        }
    }
}
