import Foundation
import KeyringTestSupport
import SecretKeychain
import Testing

@testable import KeyringAuth

/// Fuzz-style tests of the two decoders that read bytes from outside the process: the stored user record
/// (from the keychain) and Identity Toolkit's replies (from the network).
///
/// Thousands of inputs per decoder, each made from valid seeds by structure-aware JSON edits, byte edits, or
/// both. Every input must either decode to a value that keeps the decoder's promises or fail with an
/// ``AuthError`` of an expected code; a trap would end the run. The cases are deterministic: case `i` of
/// run `r` comes from ``seed``, `r` and `i` alone (`generator(run:index:)`), and a failure names all three
/// with the edits made, so it can be replayed by itself.
@Suite struct DecoderFuzzTests {
    /// The seed of every run; change it to explore other inputs.
    static let seed: UInt64 = 0x4B45_5952_494E_4721
    static let recordCases = 4_000
    static let casesPerReply = 1_000
    static let serverErrorCases = 3_000

    /// The generator of case `index` of run `run`: 1 for records, 2–6 for the replies, 7 for server errors.
    private static func generator(run: UInt64, index: Int) -> SplitMix64 {
        SplitMix64(seed: seed ^ (run << 48) ^ UInt64(index))
    }

    // MARK: Stored records

    /// The item the records are read from; a failure must name it.
    static let storedKey = KeychainKey(service: "firebase_auth_1:42:linux:aaa", account: "firebase_auth_1_app-a_firebase_user")

    /// Valid records, stored by the real encoder.
    static let records: [StoredUserRecord] = [
        // An anonymous user, as signing up leaves it.
        StoredUserRecord(
            version: 1, uid: "anon-7Qe", isAnonymous: true, hasEmailPassword: false, email: nil, emailVerified: false,
            displayName: nil, photoURL: nil, phoneNumber: nil, providerData: [],
            creationDate: Date(timeIntervalSince1970: 1_700_000_000), lastSignInDate: Date(timeIntervalSince1970: 1_700_000_000),
            tenantID: nil, apiKey: "AIzaKey", appID: "1:42:linux:aaa",
            tokens: AuthTokens(
                idToken: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbm9uLTdRZSJ9.c2ln", refreshToken: "AMf-refresh-anon",
                expirationDate: Date(timeIntervalSince1970: 1_700_003_600))),
        // An email user with a profile, two providers, a tenant and fractional dates.
        StoredUserRecord(
            version: 1, uid: "ZY1rJK0eYLg", isAnonymous: false, hasEmailPassword: true, email: "user@example.com",
            emailVerified: true, displayName: "Zo\u{EB} Example", photoURL: URL(string: "https://example.com/u/photo.png?size=64"),
            phoneNumber: "+15555550100",
            providerData: [
                ProviderUserInfo(
                    providerID: "password", uid: "user@example.com", displayName: "Zo\u{EB} Example",
                    photoURL: URL(string: "https://example.com/u/photo.png"), email: "user@example.com"),
                ProviderUserInfo(providerID: "phone", uid: "+15555550100", phoneNumber: "+15555550100"),
            ],
            creationDate: Date(timeIntervalSince1970: 1_484_124_142), lastSignInDate: Date(timeIntervalSince1970: 1_700_000_500.25),
            tenantID: "tenant-1", apiKey: "AIzaKey", appID: "1:42:linux:aaa",
            tokens: AuthTokens(idToken: "id.token.sig", refreshToken: "refresh", expirationDate: Date(timeIntervalSince1970: 1_700_003_600.5))),
        // A record a later version wrote, without dates.
        StoredUserRecord(
            version: 3, uid: "u-\u{1F642}", isAnonymous: false, hasEmailPassword: false, email: nil, emailVerified: false,
            displayName: "", photoURL: nil, phoneNumber: "+15555550101",
            providerData: [ProviderUserInfo(providerID: "phone", uid: "+15555550101", phoneNumber: "+15555550101")],
            creationDate: nil, lastSignInDate: nil, tenantID: nil, apiKey: "AIzaOther", appID: "1:42:linux:bbb",
            tokens: AuthTokens(idToken: "i", refreshToken: "r", expirationDate: Date(timeIntervalSince1970: 0))),
    ]

    /// Mutated stored records decode to records that keep the decoder's promises (a uid, a version from 1) and
    /// read back unchanged once stored again, or fail with `corruptStoredUser` naming the item: the decoder
    /// turns every `DecodingError`, and any other error, into that one code (`StoredUserRecord.decode`).
    @Test func mutatedStoredRecordsDecodeToRecordsThatStoreAgainUnchangedOrAreCorruptStoredUser() {
        for (position, record) in Self.records.enumerated() {
            let reread = try? StoredUserRecord.decode(record.encoded(), key: Self.storedKey)
            #expect(reread == record, "seed record \(position) reads back")
        }
        let mutator = Mutator(seeds: Self.records.map { $0.encoded() })
        var decoded = 0
        var refused = 0
        for index in 0..<Self.recordCases {
            var rng = Self.generator(run: 1, index: index)
            let (input, steps) = mutator.mutant(&rng)
            let fuzz = FuzzCase(run: 1, index: index, status: nil, steps: steps, input: input)
            let outcome = Result { () throws(AuthError) in try StoredUserRecord.decode(input, key: Self.storedKey) }
            switch outcome {
            case .success(let record):
                decoded += 1
                #expect(!record.uid.isEmpty && record.version >= 1, "\(fuzz)")
                let reread = try? StoredUserRecord.decode(record.encoded(), key: Self.storedKey)
                #expect(reread == record, "stored again, it reads back unchanged: \(fuzz)")
            case .failure(let error):
                refused += 1
                #expect(error.code == .corruptStoredUser, "\(error.code): \(fuzz)")
                #expect(
                    error.message.contains(Self.storedKey.description) && error.keychainError == nil,
                    "\(error.message): \(fuzz)")
            }
        }
        #expect(decoded + refused == Self.recordCases)
        #expect(decoded > 0, "no mutant was still a record")
        #expect(refused > 0, "no mutant was refused")
    }

    // MARK: Replies

    /// The reply types the client decodes, each with its seeds and its run.
    enum ReplyKind: String, CaseIterable, Sendable {
        case signIn, lookup, update, delete, secureToken, resetPassword, emailLinkSignIn

        var run: UInt64 {
            switch self {
            case .signIn: 2
            case .lookup: 3
            case .update: 4
            case .delete: 5
            case .secureToken: 6
            case .resetPassword: 8
            case .emailLinkSignIn: 9
            }
        }

        /// Whether a body that decodes can still hold tokens the client refuses (`AuthTokens(…expiresIn:)`).
        var convertsTokens: Bool { [.signIn, .update, .secureToken, .emailLinkSignIn].contains(self) }

        /// Valid bodies: those of IdentityToolkitReplyTests (Firebase's REST reference), and numeric forms
        /// emulators send.
        var bodies: [String] {
            switch self {
            case .signIn:
                [
                    #"{"idToken": "[ID_TOKEN]", "email": "", "refreshToken": "[REFRESH_TOKEN]", "expiresIn": "3600", "localId": "Jws4SVjpT..."}"#,
                    """
                    {"kind": "identitytoolkit#VerifyPasswordResponse", "localId": "ZY1rJK0eYLg...", "email": "[user@example.com]",
                     "displayName": "", "idToken": "[ID_TOKEN]", "registered": true, "refreshToken": "[REFRESH_TOKEN]",
                     "expiresIn": "3600"}
                    """,
                    #"{"localId": "u1", "idToken": "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1MSJ9.", "refreshToken": "r1", "expiresIn": 3600}"#,
                ]
            case .lookup:
                [
                    """
                    {"users": [{"localId": "ZY1rJK0...", "email": "user@example.com", "emailVerified": false,
                      "displayName": "John Doe",
                      "providerUserInfo": [{"providerId": "password", "displayName": "John Doe",
                        "photoUrl": "http://localhost:8080/img1234567890/photo.png", "federatedId": "user@example.com",
                        "email": "user@example.com", "rawId": "user@example.com", "screenName": "user@example.com"}],
                      "photoUrl": "https://lh5.googleusercontent.com/.../photo.jpg", "passwordHash": "...",
                      "passwordUpdatedAt": 1.484124177E12, "validSince": "1484124177", "disabled": false,
                      "lastLoginAt": "1484628946000", "createdAt": "1484124142000", "customAuth": false}]}
                    """,
                    """
                    {"kind": "identitytoolkit#GetAccountInfoResponse", "users": [{"localId": "u1", "createdAt": 1700000000000,
                      "lastLoginAt": "1700000000500", "emailVerified": true, "tenantId": "t1", "phoneNumber": "+15555550100"}]}
                    """,
                    #"{"users": []}"#,
                ]
            case .update:
                [
                    """
                    {"localId": "tRcfmLH7o2...", "email": "[user@example.com]", "passwordHash": "...",
                     "providerUserInfo": [{"providerId": "password", "federatedId": "[user@example.com]"}],
                     "idToken": "[NEW_ID_TOKEN]", "refreshToken": "[NEW_REFRESH_TOKEN]", "expiresIn": "3600"}
                    """,
                    """
                    {"localId": "tRcfmLH7o2...", "email": "[user@example.com]", "displayName": "[DISPLAY_NAME]",
                     "photoUrl": "[PHOTO_URL]", "passwordHash": "...",
                     "providerUserInfo": [{"providerId": "password", "federatedId": "[user@example.com]",
                       "displayName": "[DISPLAY_NAME]", "photoUrl": "http://localhost:8080/img1234567890/photo.png"}]}
                    """,
                    #"{"localId": "u1", "idToken": "i2", "refreshToken": "r2", "expiresIn": 3600}"#,
                ]
            case .delete:
                [#"{"kind": "identitytoolkit#DeleteAccountResponse"}"#, "{}"]
            case .resetPassword:
                [
                    #"{"kind": "identitytoolkit#ResetPasswordResponse", "email": "[user@example.com]", "requestType": "PASSWORD_RESET"}"#,
                    #"{"email": "old@example.com", "newEmail": "new@example.com", "requestType": "VERIFY_AND_CHANGE_EMAIL"}"#,
                ]
            case .emailLinkSignIn:
                [
                    """
                    {"kind": "identitytoolkit#EmailLinkSigninResponse", "idToken": "[ID_TOKEN]", "email": "[user@example.com]",
                     "refreshToken": "[REFRESH_TOKEN]", "expiresIn": "3600", "localId": "Jws4SVjpT...", "isNewUser": true}
                    """,
                    #"{"localId": "u1", "idToken": "i1", "refreshToken": "r1", "expiresIn": 3600}"#,
                ]
            case .secureToken:
                [
                    """
                    {"expires_in": "3600", "token_type": "Bearer", "refresh_token": "[REFRESH_TOKEN]", "id_token": "[ID_TOKEN]",
                     "user_id": "tRcfmLH7o2XrNELi...", "project_id": "1234567890"}
                    """,
                    #"{"access_token": "[ACCESS]", "expires_in": "3600", "token_type": "Bearer", "refresh_token": "[R]"}"#,
                    #"{"access_token": "a", "id_token": "i", "refresh_token": "r", "expires_in": 3600, "user_id": "u"}"#,
                ]
            }
        }
    }

    /// Every code `IdentityToolkitReply.serverError` can give: the table's, and those it gives without one
    /// (`invalidAPIKey` for Google's sentences, `internalError`, `tooManyRequests` for a 429, `networkError`).
    static let serverCodes: Set<AuthErrorCode> = {
        var codes: Set<AuthErrorCode> = [.internalError, .networkError, .tooManyRequests, .invalidAPIKey]
        for (code, _) in ServerErrorCode.table.values { codes.insert(code) }
        return codes
    }()

    /// Mutated bodies of each reply type decode and convert (`signIn`, `tokens`, `account`) to values that
    /// keep the client's promises, or fail as `IdentityToolkitReply` does: `internalError` for a 2xx answer
    /// it cannot read (`malformed`) or whose tokens it cannot use (`AuthTokens(…expiresIn:)`,
    /// `SecureTokenReply.tokens`), one of ``serverCodes`` for any other status (`serverError`).
    @Test(arguments: ReplyKind.allCases)
    func mutatedRepliesDecodeToUsableValuesOrFailWithTheClientsCodes(_ kind: ReplyKind) {
        for (position, body) in kind.bodies.enumerated() {
            if case .accepted(let problems) = Self.outcome(kind, status: 200, body: Data(body.utf8)) {
                #expect(problems.isEmpty, "seed body \(position): \(problems)")
            } else {
                Issue.record("seed body \(position) of \(kind) is refused")
            }
        }
        let mutator = Mutator(seeds: kind.bodies.map { Data($0.utf8) })
        var accepted = 0
        var unreadable = 0
        var unusable = 0
        for index in 0..<Self.casesPerReply {
            var rng = Self.generator(run: kind.run, index: index)
            let (input, steps) = mutator.mutant(&rng)
            let status = rng.chance(90) ? rng.pick([200, 200, 200, 201, 204, 299]) : Self.errorStatus(&rng)
            let fuzz = FuzzCase(run: kind.run, index: index, status: status, steps: steps, input: input)
            let success = (200..<300).contains(status)
            switch Self.outcome(kind, status: status, body: input) {
            case .accepted(let problems):
                accepted += 1
                #expect(success && problems.isEmpty, "\(problems): \(fuzz)")
            case .unreadable(let error):
                unreadable += 1
                let allowed: Set<AuthErrorCode> = success ? [.internalError] : Self.serverCodes
                #expect(allowed.contains(error.code) && !error.message.isEmpty, "\(error): \(fuzz)")
            case .unusable(let error):
                unusable += 1
                #expect(error.code == .internalError && !error.message.isEmpty, "\(error): \(fuzz)")
            }
        }
        #expect(accepted + unreadable + unusable == Self.casesPerReply)
        #expect(accepted > 0, "no mutant of \(kind) was accepted")
        #expect(unreadable > 0, "no mutant of \(kind) was refused")
        if kind.convertsTokens {
            #expect(unusable > 0, "no mutant of \(kind) decoded with tokens the client refuses")
        }
    }

    /// Decodes `body` as `kind`'s reply, then converts it as `IdentityToolkitBackend` does.
    private static func outcome(_ kind: ReplyKind, status: Int, body: Data) -> ReplyOutcome {
        switch kind {
        case .signIn:
            return decoding(SignInReply.self, status, body) { (reply: SignInReply) throws(AuthError) -> [String] in
                let signIn = try reply.signIn(isNewUser: false)
                return Self.tokenProblems(signIn.tokens) + (signIn.uid == reply.localId ? [] : ["the uid is not localId"])
            }
        case .lookup:
            return decoding(LookupReply.self, status, body) { (reply: LookupReply) throws(AuthError) -> [String] in
                var problems: [String] = []
                for user in reply.users ?? [] {
                    let account = user.account
                    if account.uid != user.localId || account.providers.count != (user.providerUserInfo?.count ?? 0) {
                        problems.append("the account of \(user.localId) is not the user")
                    }
                }
                return problems
            }
        case .update:
            return decoding(UpdateReply.self, status, body) { (reply: UpdateReply) throws(AuthError) -> [String] in
                guard let tokens = try reply.tokens else { return [] }
                return Self.tokenProblems(tokens) + (tokens.idToken == reply.idToken ? [] : ["not the reply's idToken"])
            }
        case .delete:
            return decoding(DeleteReply.self, status, body) { (_: DeleteReply) throws(AuthError) -> [String] in [] }
        case .resetPassword:
            return decoding(ResetPasswordReply.self, status, body) { (reply: ResetPasswordReply) throws(AuthError) -> [String] in
                let info = try reply.info
                return info.email.isEmpty ? ["an empty address"] : []
            }
        case .emailLinkSignIn:
            return decoding(EmailLinkSignInReply.self, status, body) { (reply: EmailLinkSignInReply) throws(AuthError) -> [String] in
                let signIn = try reply.signIn
                return Self.tokenProblems(signIn.tokens) + (signIn.uid == reply.localId ? [] : ["the uid is not localId"])
            }
        case .secureToken:
            return decoding(SecureTokenReply.self, status, body) { (reply: SecureTokenReply) throws(AuthError) -> [String] in
                let tokens = try reply.tokens
                let sent = reply.idToken ?? reply.accessToken
                return Self.tokenProblems(tokens) + (tokens.idToken == sent ? [] : ["not the reply's token"])
            }
        }
    }

    private static func decoding<Reply: Decodable>(
        _ type: Reply.Type, _ status: Int, _ body: Data, then convert: (Reply) throws(AuthError) -> [String]
    ) -> ReplyOutcome {
        let reply: Reply
        do throws(AuthError) {
            reply = try IdentityToolkitReply.decode(type, status: status, body: body, operation: "fuzz")
        } catch {
            return .unreadable(error)
        }
        do throws(AuthError) {
            return .accepted(try convert(reply))
        } catch {
            return .unusable(error)
        }
    }

    /// What is wrong with tokens the client accepted: it promises non-empty tokens that expire within 366 days.
    private static func tokenProblems(_ tokens: AuthTokens) -> [String] {
        var problems: [String] = []
        if tokens.idToken.isEmpty || tokens.refreshToken.isEmpty { problems.append("an empty token") }
        let lifetime = tokens.expirationDate.timeIntervalSinceNow
        let longest: TimeInterval = 366 * 24 * 3600 + 60
        if !(-60...longest).contains(lifetime) { problems.append("a lifetime of \(lifetime) s") }
        return problems
    }

    /// A status a refusal may come with, odd ones included.
    private static func errorStatus(_ rng: inout SplitMix64) -> Int {
        rng.chance(70) ? 400 + rng.below(200) : rng.pick([0, 429, 429, -1, 100, 200, 302, 399, 600, 999])
    }

    // MARK: Server errors

    /// Refusals in the shapes Google sends (from IdentityToolkitReplyTests), and bodies that are not one.
    static let errorBodies = [
        """
        {"error": {"errors": [{"domain": "global", "reason": "invalid", "message": "EMAIL_NOT_FOUND"}],
         "code": 400, "message": "EMAIL_NOT_FOUND"}}
        """,
        #"{"error": {"code": 400, "message": "WEAK_PASSWORD : Password should be at least 6 characters"}}"#,
        #"{"error": {"code": 400, "message": "INVALID_REFRESH_TOKEN", "status": "INVALID_ARGUMENT"}}"#,
        """
        {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
          "errors": [{"message": "API key not valid. Please pass a valid API key.", "domain": "global", "reason": "badRequest"}],
          "status": "INVALID_ARGUMENT",
          "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
            "domain": "googleapis.com", "metadata": {"service": "identitytoolkit.googleapis.com"}}]}}
        """,
        #"{"error": {"errors": [{"domain": "usageLimits", "reason": "keyInvalid", "message": "Bad Request"}], "code": 400, "message": "Bad Request"}}"#,
        #"{"error": {"code": 403, "message": "The request is missing a valid API key.", "status": "PERMISSION_DENIED"}}"#,
        #"{"error": {"code": 429, "message": "Quota exceeded for quota metric 'Queries' of service 'identitytoolkit.googleapis.com' for consumer 'project_number:123'.", "status": "RESOURCE_EXHAUSTED"}}"#,
        #"{"error": {"code": 400, "message": "TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account has been temporarily disabled"}}"#,
        #"{"error": {"code": 400, "message": "SOMETHING_NEW : with a detail"}}"#,
        #"{"error": "nope"}"#,
        "<html>Bad Gateway</html>",
    ]

    /// Mutated error bodies with any status give a typed error with a message: for a body that reads as
    /// `ServerErrorReply`, the code its message maps to (never `networkError`, and never `internalError` for a
    /// 429); for any other body, `networkError` from 500 up or with no status, `internalError` otherwise.
    @Test func mutatedErrorBodiesWithAnyStatusGiveATypedErrorWithAMessage() {
        let mutator = Mutator(seeds: Self.errorBodies.map { Data($0.utf8) })
        let decoder = JSONDecoder()
        var readable = 0
        var unreadable = 0
        var codes: Set<AuthErrorCode> = []
        for index in 0..<Self.serverErrorCases {
            var rng = Self.generator(run: 7, index: index)
            let (input, steps) = mutator.mutant(&rng)
            let status = Self.errorStatus(&rng)
            let fuzz = FuzzCase(run: 7, index: index, status: status, steps: steps, input: input)
            let error = IdentityToolkitReply.serverError(status: status, body: input, operation: "fuzz")
            codes.insert(error.code)
            #expect(Self.serverCodes.contains(error.code) && !error.message.isEmpty, "\(error): \(fuzz)")
            if (try? decoder.decode(ServerErrorReply.self, from: input)) != nil {
                readable += 1
                #expect(error.code != .networkError, "\(error): \(fuzz)")
                #expect(status != 429 || error.code != .internalError, "\(error): \(fuzz)")
            } else {
                unreadable += 1
                let expected: AuthErrorCode = status >= 500 || status == 0 ? .networkError : .internalError
                #expect(error.code == expected, "\(error): \(fuzz)")
            }
        }
        #expect(readable + unreadable == Self.serverErrorCases)
        #expect(readable > 0 && unreadable > 0, "\(readable) bodies read as an error, \(unreadable) not")
        #expect(codes.count >= 5, "only \(codes.map(\.name).sorted())")
    }

    // MARK: The mutator

    /// The same run and index give the same case, and the cases differ from each other and from the seeds.
    @Test func theMutatorIsReproducibleAndItsCasesAreVaried() {
        let seeds = Self.records.map { $0.encoded() }
        let mutator = Mutator(seeds: seeds)
        var inputs: [Data] = []
        for index in 0..<500 {
            var first = Self.generator(run: 1, index: index)
            var second = Self.generator(run: 1, index: index)
            let one = mutator.mutant(&first)
            let two = mutator.mutant(&second)
            #expect(one.input == two.input && one.steps == two.steps, "case \(index)")
            inputs.append(one.input)
        }
        let distinct = Set(inputs).count
        let unchanged = inputs.filter { seeds.contains($0) }.count
        #expect(distinct > 450, "\(distinct) distinct inputs of 500")
        #expect(unchanged < 10, "\(unchanged) inputs equal to a seed")
    }
}

/// What decoding and converting one reply came to.
private enum ReplyOutcome {
    /// Decoded and converted; the promises the value broke, if any.
    case accepted([String])
    /// The body was refused.
    case unreadable(AuthError)
    /// The body decoded, but the conversion refused what it holds.
    case unusable(AuthError)
}

/// One generated input, described so that a failure can be replayed.
private struct FuzzCase: CustomStringConvertible {
    let run: UInt64
    let index: Int
    let status: Int?
    let steps: [String]
    let input: Data

    var description: String {
        let shown = String(decoding: input.prefix(200), as: UTF8.self)
        let statusPart = status.map { " status \($0)" } ?? ""
        return "seed 0x\(String(DecoderFuzzTests.seed, radix: 16)) run \(run) case \(index)\(statusPart) "
            + "[\(steps.joined(separator: "; "))] \(shown.debugDescription)"
    }
}

extension SplitMix64 {
    /// A number in `0..<bound`; `bound` must be positive.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// One of `items`, which must not be empty.
    mutating func pick<Element>(_ items: [Element]) -> Element { items[below(items.count)] }
}

/// A JSON document that keeps its members in order (a key may repeat) and can hold any text as a value, so
/// that edits can write what no encoder would: `1e309`, `NaN`, a lone surrogate, 10,000 nested arrays.
private enum JSONTree: Decodable {
    case null
    case bool(Bool)
    /// A number, or any text written as it is.
    case literal(String)
    case string(String)
    case array([JSONTree])
    case object([Member])

    struct Member {
        var key: String
        var value: JSONTree
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .literal(String(value))
        } else if let value = try? container.decode(Double.self) {
            self = .literal("\(value)")
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONTree].self) {
            self = .array(value)
        } else {
            let members = try container.decode([String: JSONTree].self)
            // Sorted, so that every run edits the same members.
            self = .object(members.sorted { $0.key < $1.key }.map { Member(key: $0.key, value: $0.value) })
        }
    }

    var text: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .literal(let text): text
        case .string(let value): Self.quoted(value)
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { Self.quoted($0.key) + ":" + $0.value.text }.joined(separator: ",") + "}"
        }
    }

    /// Every key in the document.
    var keys: [String] {
        switch self {
        case .array(let items): items.flatMap(\.keys)
        case .object(let members): members.flatMap { [$0.key] + $0.value.keys }
        default: []
        }
    }

    /// The path of every node, as child positions from the root, the root's (empty) first.
    func paths(from prefix: [Int] = []) -> [[Int]] {
        var result = [prefix]
        switch self {
        case .array(let items):
            for (position, item) in items.enumerated() { result += item.paths(from: prefix + [position]) }
        case .object(let members):
            for (position, member) in members.enumerated() { result += member.value.paths(from: prefix + [position]) }
        default:
            break
        }
        return result
    }

    func node(at path: ArraySlice<Int>) -> JSONTree {
        guard let first = path.first else { return self }
        switch self {
        case .array(let items): return items[first].node(at: path.dropFirst())
        case .object(let members): return members[first].value.node(at: path.dropFirst())
        default: return self
        }
    }

    func replacing(at path: ArraySlice<Int>, with node: JSONTree) -> JSONTree {
        guard let first = path.first else { return node }
        switch self {
        case .array(var items):
            items[first] = items[first].replacing(at: path.dropFirst(), with: node)
            return .array(items)
        case .object(var members):
            members[first].value = members[first].value.replacing(at: path.dropFirst(), with: node)
            return .object(members)
        default:
            return self
        }
    }

    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// Makes inputs from valid seeds: one to three structure-aware edits of the parsed JSON (drop or add a key,
/// set a value to null, a boundary number, an odd string, deep nesting…), one to four byte edits (flip a
/// bit, write an interesting byte, delete, repeat, truncate, insert, splice with a seed, change a digit), or
/// the structure edits followed by byte edits.
private struct Mutator {
    let seeds: [[UInt8]]
    /// The seeds parsed; `nil` for a seed that is not JSON, which gets byte edits only.
    private let trees: [JSONTree?]
    /// The keys of every seed and a few others, for edits that add a key.
    private let keys: [String]

    init(seeds: [Data]) {
        let parsed = seeds.map { try? JSONDecoder().decode(JSONTree.self, from: $0) }
        var names: Set<String> = ["", "extra"]
        for tree in parsed { names.formUnion(tree?.keys ?? []) }
        self.seeds = seeds.map { Array($0) }
        trees = parsed
        keys = names.sorted()
    }

    /// A mutant of one seed, and the edits that made it.
    func mutant(_ rng: inout SplitMix64) -> (input: Data, steps: [String]) {
        let index = rng.below(seeds.count)
        var steps = ["from input \(index)"]
        var bytes = seeds[index]
        // 0: bytes only; 1: structure only; 2: structure, then bytes.
        let plan = rng.below(3)
        var structured = false
        if plan > 0, var tree = trees[index] {
            for _ in 0...rng.below(3) { tree = edit(tree, &rng, &steps) }
            bytes = Array(tree.text.utf8)
            structured = true
        }
        if plan != 1 || !structured {
            for _ in 0...rng.below(4) { editBytes(&bytes, &rng, &steps) }
        }
        return (Data(bytes), steps)
    }

    // MARK: Structure

    /// Replaces one node of `tree`, chosen among all of them, with an edit of it.
    private func edit(_ tree: JSONTree, _ rng: inout SplitMix64, _ steps: inout [String]) -> JSONTree {
        let paths = tree.paths()
        let path = paths[rng.below(paths.count)]
        let (node, step) = edited(tree.node(at: path[...]), &rng)
        steps.append("\(step) at \(path)")
        return tree.replacing(at: path[...], with: node)
    }

    /// Half of the time an edit that fits the node (drop a key, change a string…), otherwise a new value.
    private func edited(_ node: JSONTree, _ rng: inout SplitMix64) -> (JSONTree, String) {
        if rng.chance(50) {
            switch node {
            case .object(var members) where !members.isEmpty:
                let position = rng.below(members.count)
                switch rng.below(3) {
                case 0:
                    let dropped = members.remove(at: position)
                    return (.object(members), "drop \(dropped.key)")
                case 1:
                    let key = members[position].key
                    let (value, step) = replacement(&rng)
                    members.append(JSONTree.Member(key: key, value: value))
                    return (.object(members), "repeat \(key) as \(step)")
                default:
                    let key = rng.pick(keys)
                    let (value, step) = replacement(&rng)
                    members.insert(JSONTree.Member(key: key, value: value), at: position)
                    return (.object(members), "add \(key.debugDescription) as \(step)")
                }
            case .array(var items) where !items.isEmpty:
                let position = rng.below(items.count)
                if rng.chance(50) {
                    items.remove(at: position)
                    return (.array(items), "remove item \(position)")
                }
                let item = items[position]
                items.insert(item, at: position)
                return (.array(items), "repeat item \(position)")
            case .string(let string):
                return editedString(string, &rng)
            case .literal(let text):
                switch rng.below(4) {
                case 0: return (.literal(text.hasPrefix("-") ? String(text.dropFirst()) : "-" + text), "negate")
                case 1: return (.literal(text + "000000"), "times a million")
                case 2: return (.literal(text + ".5"), "add a fraction")
                default:
                    let exponent = rng.below(801) - 400
                    return (.literal(text + "e\(exponent)"), "add exponent \(exponent)")
                }
            case .bool(let value):
                return (.bool(!value), "negate")
            default:
                break
            }
        }
        return replacement(&rng)
    }

    private func editedString(_ string: String, _ rng: inout SplitMix64) -> (JSONTree, String) {
        var scalars = Array(string.unicodeScalars)
        let step: String
        switch rng.below(4) {
        case 0:
            let scalar = rng.pick(Self.interestingScalars)
            scalars.insert(scalar, at: rng.below(scalars.count + 1))
            step = "insert U+\(String(scalar.value, radix: 16))"
        case 1:
            let length = rng.below(scalars.count + 1)
            scalars.removeSubrange(length...)
            step = "truncate to \(length)"
        case 2:
            scalars = scalars + scalars
            step = "double"
        default:
            let text = rng.pick(Self.interestingStrings)
            return (.string(text), "string \(text.debugDescription)")
        }
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return (.string(result), step)
    }

    /// A new value of any kind, many of them at a boundary.
    private func replacement(_ rng: inout SplitMix64) -> (JSONTree, String) {
        switch rng.below(12) {
        case 0:
            return (.null, "null")
        case 1:
            return (.bool(rng.chance(50)), "bool")
        case 2:
            let number = rng.below(20_001) - 10_000
            return (.literal(String(number)), "number \(number)")
        case 3:
            let text = rng.pick(Self.interestingNumbers)
            return (.literal(text), "number \(text)")
        case 4:
            return (.string(""), "empty string")
        case 5:
            let text = rng.pick(Self.interestingStrings)
            return (.string(text), "string \(text.debugDescription)")
        case 6:
            let length = 1_000 + rng.below(9_000)
            return (.string(String(repeating: "x", count: length)), "string of \(length)")
        case 7:
            var items: [JSONTree] = []
            for _ in 0..<rng.below(4) { items.append(.literal(String(rng.below(100)))) }
            return (.array(items), "array of \(items.count)")
        case 8:
            return (.object([]), "empty object")
        case 9:
            let key = rng.pick(keys)
            return (.object([JSONTree.Member(key: key, value: .string(key))]), "object with \(key.debugDescription)")
        case 10:
            let depth = rng.pick([16, 100, 511, 512, 513, 10_000])
            return (.literal(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)), "nesting \(depth)")
        default:
            let text = rng.pick(Self.brokenTokens)
            return (.literal(text), "token \(text)")
        }
    }

    // MARK: Bytes

    /// One byte edit; an empty input can only grow.
    private func editBytes(_ bytes: inout [UInt8], _ rng: inout SplitMix64, _ steps: inout [String]) {
        switch bytes.isEmpty ? 5 : rng.below(9) {
        case 0:
            let position = rng.below(bytes.count)
            let bit = UInt8(rng.below(8))
            bytes[position] ^= UInt8(1) << bit
            steps.append("flip bit \(bit) of byte \(position)")
        case 1:
            let position = rng.below(bytes.count)
            let byte = rng.pick(Self.interestingBytes)
            bytes[position] = byte
            steps.append("byte \(position) = 0x\(String(byte, radix: 16))")
        case 2:
            let range = Self.range(in: bytes.count, &rng)
            bytes.removeSubrange(range)
            steps.append("delete \(range)")
        case 3:
            let range = Self.range(in: bytes.count, &rng)
            let copy = Array(bytes[range])
            bytes.insert(contentsOf: copy, at: range.upperBound)
            steps.append("repeat \(range)")
        case 4:
            let length = rng.below(bytes.count)
            bytes.removeSubrange(length...)
            steps.append("truncate to \(length)")
        case 5:
            var inserted: [UInt8] = []
            for _ in 0...rng.below(8) { inserted.append(UInt8(truncatingIfNeeded: rng.next())) }
            let position = rng.below(bytes.count + 1)
            bytes.insert(contentsOf: inserted, at: position)
            steps.append("insert \(inserted.count) random bytes at \(position)")
        case 6:
            let token = rng.pick(Self.insertedTokens)
            let position = rng.below(bytes.count + 1)
            bytes.insert(contentsOf: Array(token.utf8), at: position)
            steps.append("insert \(token.debugDescription) at \(position)")
        case 7:
            let other = rng.pick(seeds)
            let cut = rng.below(bytes.count + 1)
            let from = rng.below(other.count + 1)
            bytes = Array(bytes[..<cut]) + other[from...]
            steps.append("splice at \(cut) with a seed from \(from)")
        default:
            let digits = bytes.indices.filter { (0x30...0x39).contains(bytes[$0]) }
            if digits.isEmpty {
                bytes.append(0x30)
                steps.append("append 0")
            } else {
                let position = rng.pick(digits)
                let digit = (bytes[position] - 0x30 + 1 + UInt8(rng.below(9))) % 10
                bytes[position] = 0x30 + digit
                steps.append("digit \(position) = \(digit)")
            }
        }
    }

    /// A range of 1 to 16 bytes within `count` (which must be positive).
    private static func range(in count: Int, _ rng: inout SplitMix64) -> Range<Int> {
        let start = rng.below(count)
        return start..<(start + 1 + rng.below(min(16, count - start)))
    }

    // MARK: Interesting values

    /// JSON's structural bytes, digits and exponent marks, control bytes, and UTF-8 lead, continuation and
    /// never-valid bytes.
    static let interestingBytes: [UInt8] = [
        0x00, 0x01, 0x09, 0x0A, 0x1F, 0x20, 0x22, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0x30, 0x31, 0x39, 0x3A, 0x45, 0x5B,
        0x5C, 0x5D, 0x65, 0x66, 0x6E, 0x74, 0x7B, 0x7D, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE2, 0xED, 0xEF, 0xF0, 0xF4,
        0xF8, 0xFE, 0xFF,
    ]

    /// Text inserted between bytes: JSON tokens, escapes (some broken), a byte order mark, an emoji.
    static let insertedTokens = [
        "null", "true", "false", "0", "-0", "1e309", "NaN", "9223372036854775808", "\"\"", "[]", "{}", "[", "]", "{",
        "}", ",", ":", "\"", "\\", #"\u0000"#, #"\ud800"#, #"\u"#, "\u{FEFF}", "\u{1F642}", " ", "\n", "/*", "//",
    ]

    /// Numbers at the edges: of `expiresIn`'s range (0…31,622,400), of Int64 and Double, dates in milliseconds.
    static let interestingNumbers = [
        "0", "-0", "1", "-1", "7", "3600", "-3600", "86400", "31622400", "31622401", "2147483647", "2147483648",
        "-2147483649", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "123456789012345678901234567890", "0.5", "1.5", "3600.0", "3600.5", "1e3", "1E+2",
        "1e-2", "1e309", "-1e309", "1e-400", "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
        "-1.7976931348623157e308", "1484124142000", "1.484124177E12", "1700000000000", "-62135596800000",
        "253402300800000",
    ]

    /// Text no JSON parser should accept as a value, or only just: non-numbers, bad escapes, trailing commas.
    static let brokenTokens = [
        "NaN", "-NaN", "Infinity", "-Infinity", "01", "+1", ".5", "1.", "0x10", "1e", "-", "undefined", "True",
        "nul", "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, "{1: 2}", #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#,
        #""\u12""#, #""\x41""#, #""unterminated"#, "\"\u{1}\"",
    ]

    /// Strings the decoders and conversions treat specially: numbers in strings, server codes and sentences,
    /// odd URLs, and Unicode at its edges.
    static let interestingStrings = [
        "", " ", "0", "-5", "3600", "-3600", "31622400", "31622401", "99999999999999", "9223372036854775807",
        "9223372036854775808", "1e309", "NaN", "Infinity", "-0", "3600.5", " 3600", "3600 ", "0x10", "+3600", "true",
        "null", "password", "phone", "API_KEY_INVALID", "keyInvalid", "API key not valid. Please pass a valid API key.",
        "The request is missing a valid API key.", "EMAIL_NOT_FOUND", "EMAIL_EXISTS", "USER_DISABLED",
        "INVALID_ID_TOKEN:The user's credential is no longer valid.", "WEAK_PASSWORD : Password should be at least 6 characters",
        "TOO_MANY_ATTEMPTS_TRY_LATER", "QUOTA_EXCEEDED", "INVALID_GRANT_TYPE", ":", " : ", "A:B:C",
        "Quota exceeded for consumer 'project_number:123'.", "https://example.com/a b.png", "http://[::1]:80/", "%zz",
        "file:///etc/passwd", "mailto:", "//", "\u{0}", "a\u{0}b", "\u{1F642}", "e\u{301}", "\u{FFFD}", "\u{FEFF}",
        "\u{10FFFF}", "\n\t\r", "\\", "\"", "\u{E9}",
    ]

    static let interestingScalars: [Unicode.Scalar] = [
        "\u{0}", "\u{1}", "\u{1F}", "\"", "\\", "/", ":", " ", "-", "+", ".", "e", "0", "9", "%", "\u{E9}", "\u{301}",
        "\u{200B}", "\u{FEFF}", "\u{FFFD}", "\u{1F642}", "\u{10FFFF}",
    ]
}
