import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SystemSupport

/// The code of an authenticator app (a TOTP second factor): on a terminal, asked for with a prompt on standard
/// error; piped in, the next line of standard input (after the password, when there is one).
///
/// - Throws: `ValidationError` when standard input holds no further line.
func readAuthenticatorCode() throws -> String {
    let code: String?
    if isatty(STDIN_FILENO) == 1 {
        FileHandle.standardError.write(Data("Code from your authenticator app: ".utf8))
        code = readLine(strippingNewline: true)
    } else {
        code = try PipedLines.shared.next("the code from your authenticator app")
    }
    let digits = (code ?? "").trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "")
    guard !digits.isEmpty else {
        throw ValidationError(
            "The account has a second factor: give the code from your authenticator app on the line after the password, "
                + "for example: printf '%s\\n%s\\n' \"$PASSWORD\" \"$CODE\" | keyring-auth sign-in …")
    }
    return digits
}

/// Finishes a sign-in that met a second factor: chooses the factor (`--factor`, else the only one, else a prompt on a
/// terminal), reads its code (an authenticator app's, or the SMS's once the page in the browser verified the app), and
/// resolves; on a terminal a wrong code may be typed once more.
///
/// - Throws: ``CLIFailure`` or `ValidationError`: several factors and no terminal nor `--factor`, a wrong code (exit 5,
///   nothing stored).
func resolveSecondFactor(_ resolver: MultiFactorResolver, factor chosen: String?, page: BrowserPageOptions) async throws -> AuthDataResult {
    let hint = try chooseFactor(resolver.hints, chosen: chosen)
    let tries = isatty(STDIN_FILENO) == 1 ? 2 : 1
    for attempt in 1...tries {
        let assertion: MultiFactorAssertion
        if let phone = hint as? PhoneMultiFactorInfo {
            assertion = try await page.phoneAssertion(for: phone, resolver: resolver)
        } else {
            assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid, oneTimePassword: try readAuthenticatorCode())
        }
        do {
            return try await resolver.resolveSignIn(with: assertion)
        } catch let error as AuthError where error.code == .invalidVerificationCode && attempt < tries {
            FileHandle.standardError.write(Data("That code is wrong or has expired; enter the current one.\n".utf8))
        }
    }
    preconditionFailure("the last try returns or throws")
}

/// The factor to finish with.
private func chooseFactor(_ hints: [MultiFactorInfo], chosen: String?) throws -> MultiFactorInfo {
    func name(_ hint: MultiFactorInfo) -> String { "\(hint.uid) (\(describe(hint)))".escapedForTerminal }
    if let chosen {
        guard let hint = hints.first(where: { $0.uid == chosen }) else {
            throw CLIFailure(.invalidInput, "The account has no second factor \(chosen.escapedForTerminal); it has: "
                + hints.map(name).joined(separator: ", ") + ".")
        }
        return hint
    }
    if hints.count == 1 { return hints[0] }
    guard isatty(STDIN_FILENO) == 1 else {
        throw CLIFailure(.invalidInput, "The account has several second factors; choose one with --factor: "
            + hints.map(name).joined(separator: ", ") + ".")
    }
    for (index, hint) in hints.enumerated() {
        FileHandle.standardError.write(Data("  \(index + 1). \(describe(hint).escapedForTerminal)\n".utf8))
    }
    FileHandle.standardError.write(Data("Which second factor (1–\(hints.count))? ".utf8))
    guard let answer = readLine().flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), hints.indices.contains(answer - 1) else {
        throw CLIFailure(.invalidInput, "No such factor; run the command again and type one of the numbers.")
    }
    return hints[answer - 1]
}

/// A factor as the person knows it: its name, and an SMS factor's (masked) number.
private func describe(_ hint: MultiFactorInfo) -> String {
    let name = hint.displayName ?? hint.factorID
    guard let phone = hint as? PhoneMultiFactorInfo else { return "\(name), authenticator app" }
    return "\(name), SMS to \(phone.phoneNumber)"
}
