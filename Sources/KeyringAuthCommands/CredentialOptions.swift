import ArgumentParser
import Foundation
import KeyringAuth

/// How `sign-in` and `link` take a credential: an email and password, or an identity provider's tokens,
/// every secret from standard input (never from the command line, where `ps` shows it).
struct CredentialOptions: ParsableArguments {
    @Option(help: "An email address; the password comes from standard input (--password-stdin).")
    var email: String?

    @Flag(help: "Read the password from standard input (with --email).")
    var passwordStdin = false

    @Flag(help: "With --email: read an email sign-in link (send-oob --sign-in-link) from standard input instead of a password.")
    var linkStdin = false

    @Option(help: ArgumentHelp(
        "An identity provider: google.com, github.com, apple.com, microsoft.com, oidc.<name>, …", valueName: "provider"))
    var idp: String?

    @Flag(help: "With --idp: read the provider's ID token from standard input (the first line).")
    var idTokenStdin = false

    @Flag(help: "With --idp: read the provider's access token from standard input (the line after the ID token, if any).")
    var accessTokenStdin = false

    var given: Bool { email != nil || idp != nil }

    func validate() throws {
        guard !(email != nil && idp != nil) else { throw ValidationError("Give --email or --idp, not both.") }
        guard email == nil || passwordStdin != linkStdin else {
            throw ValidationError("--email needs --password-stdin or --link-stdin (one of them).")
        }
        guard email != nil || !linkStdin else { throw ValidationError("--link-stdin goes with --email.") }
        guard idp != nil || !(idTokenStdin || accessTokenStdin) else {
            throw ValidationError("--id-token-stdin and --access-token-stdin go with --idp PROVIDER.")
        }
        guard idp == nil || idTokenStdin || accessTokenStdin else {
            throw ValidationError("--idp needs --id-token-stdin, --access-token-stdin, or both.")
        }
    }

    /// A credential as given on the command line, its secrets read.
    enum Given {
        case email(String, password: String)
        case emailLink(String, link: String)
        case provider(OAuthCredential)

        var credential: AuthCredential {
            switch self {
            case .email(let email, let password): EmailAuthProvider.credential(withEmail: email, password: password)
            case .emailLink(let email, let link): EmailAuthProvider.credential(withEmail: email, link: link)
            case .provider(let credential): credential
            }
        }
    }

    /// The credential, its secrets read from standard input; `nil` when none was given.
    func read() throws -> Given? {
        if let email, linkStdin { return .emailLink(email, link: try readSecretLines(["the sign-in link"], flag: "--link-stdin")[0]) }
        if let email { return .email(email, password: try readPassword()) }
        guard let idp else { return nil }
        let lines = try readSecretLines(
            [idTokenStdin ? "the ID token" : nil, accessTokenStdin ? "the access token" : nil].compactMap { $0 }, flag: "--idp")
        let idToken = idTokenStdin ? lines[0] : nil
        let accessToken = accessTokenStdin ? lines[idTokenStdin ? 1 : 0] : nil
        if let idToken {
            return .provider(OAuthProvider.credential(withProviderID: idp, idToken: idToken, accessToken: accessToken))
        }
        return .provider(OAuthProvider.credential(withProviderID: idp, accessToken: accessToken ?? ""))
    }
}

/// Reads one secret per line from standard input, which must be piped in (tokens are not typed at a
/// terminal): `names` say what each line holds, for the error.
///
/// - Throws: `ValidationError` when standard input is a terminal or holds fewer non-empty lines.
func readSecretLines(_ names: [String], flag: String) throws -> [String] {
    guard isatty(STDIN_FILENO) != 1 else {
        throw ValidationError(
            "\(flag) reads \(names.joined(separator: " then ")) from standard input; pipe \(names.count == 1 ? "it" : "them, one a line,") in, "
                + "for example: printf '%s\\n' \"$TOKEN\" | keyring-auth …")
    }
    return try names.enumerated().map { index, name in
        guard let line = try PipedLines.shared.next(names.joined(separator: " then ")), !line.isEmpty else {
            throw ValidationError("No \(name) on line \(index + 1) of standard input; pipe \(names.joined(separator: " then ")) in, one a line.")
        }
        return line
    }
}

