import Foundation
@testable import KeyringAuth
import Testing

/// The service's error messages map as Firebase's `AuthBackend.swift` maps them, and the `NSError`s carry what
/// Firebase's `AuthErrorUtils` puts in them: checked against lists taken once from Firebase's source
/// (`scripts/firebase-server-errors.txt`, `scripts/firebase-auth-error-names.txt`; their headers say how).
@Suite struct FirebaseErrorMappingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The lines of a list under `scripts/`, comments left out, each split at its spaces.
    static func list(_ name: String) throws -> [[String]] {
        try String(contentsOf: root.appendingPathComponent("scripts/\(name)"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ").map(String.init) }
    }

    static func code(named name: String) -> AuthErrorCode? {
        (0..<20_000).lazy.compactMap { AuthErrorCode(rawValue: $0) }.first { $0.name == name }
    }

    private func failure(_ message: String, reasons: [String] = []) -> AuthError {
        let errors = reasons.map { #"{"domain": "global", "reason": "\#($0)", "message": "\#(message)"}"# }.joined(separator: ", ")
        let body = #"{"error": {"code": 400, "message": "\#(message)", "errors": [\#(errors)]}}"#
        return IdentityToolkitReply.serverError(status: 400, body: Data(body.utf8), operation: "test")
    }

    @Test func everyMessageFirebaseMapsMapsToFirebasesCode() throws {
        let pairs = try Self.list("firebase-server-errors.txt")
        #expect(pairs.count > 60)
        for pair in pairs {
            let expected = try #require(Self.code(named: pair[1]), "Firebase's \(pair[1]) is an AuthErrorCode")
            if pair[0].hasPrefix("reason:") {
                let reason = pair[0].dropFirst("reason:".count).replacingOccurrences(of: "*", with: "Forbidden")
                #expect(failure("Bad Request", reasons: [reason]).code == expected, "\(pair)")
            } else {
                #expect(failure(pair[0]).code == expected, "\(pair)")
                #expect(failure("\(pair[0]) : with the service's detail").code == expected, "\(pair)")
            }
        }
    }

    /// A message Firebase leaves as `internalError` that this package maps to a code of its own: each is listed,
    /// with its reason, in "Handling errors".
    @Test func everyMessageMappedBeyondFirebaseIsListedInHandlingErrors() throws {
        let firebase = Set(try Self.list("firebase-server-errors.txt").map(\.[0]))
        let article = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/KeyringAuth/KeyringAuth.docc/HandlingErrors.md"), encoding: .utf8)
        let section = try #require(article.components(separatedBy: "### Where the mapping differs from Firebase's").dropFirst().first)
            .components(separatedBy: "\n#").first ?? ""
        let beyond = ServerErrorCode.table.filter { !firebase.contains($0.key) && $0.value.0 != .internalError }.keys.sorted()
        #expect(!beyond.isEmpty)
        for message in beyond {
            #expect(section.contains("`\(message)`"), "\(message) maps to \(ServerErrorCode.table[message]!.0) here, internalError in Firebase")
        }
        for message in ["API_KEY_INVALID", "429"] { #expect(section.contains(message)) }
    }

    @Test func everyCodeHasFirebasesShortName() throws {
        let names = try Self.list("firebase-auth-error-names.txt")
        #expect(names.count > 80)
        for entry in names {
            let code = try #require(AuthErrorCode(rawValue: Int(entry[0])!), "\(entry)")
            #expect(code.name == entry[1] && code.userInfoName == entry[2], "\(entry)")
        }
    }

    @Test func aWeakPasswordCarriesTheServicesReasonAsFirebasesDoes() {
        let error = failure("WEAK_PASSWORD : Password should be at least 6 characters") as NSError
        #expect(error.code == AuthErrorCode.weakPassword.rawValue)
        #expect(error.userInfo[NSLocalizedFailureReasonErrorKey] as? String == "Password should be at least 6 characters")
        #expect((failure("WEAK_PASSWORD") as NSError).userInfo[NSLocalizedFailureReasonErrorKey] == nil)
        #expect((failure("USER_DISABLED : by an administrator") as NSError).userInfo[NSLocalizedFailureReasonErrorKey] == nil)
    }

    @Test func anUnknownReplyIsAnInternalErrorCarryingTheReply() throws {
        let error = failure("SOMETHING_NEW : with a detail") as NSError
        #expect(error.code == AuthErrorCode.internalError.rawValue)
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain == "FIRAuthInternalErrorDomain" && underlying.code == 3)
        let reply = try #require(underlying.userInfo["FIRAuthErrorUserInfoDeserializedResponseKey"] as? [String: Any])
        #expect(reply["message"] as? String == "SOMETHING_NEW : with a detail" && reply["code"] as? Int == 400)
        #expect((failure("USER_DISABLED") as NSError).userInfo[NSUnderlyingErrorKey] == nil)
    }
}
