import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth
import SystemSupport

// Phone numbers at the command line: the verification page in the browser, then the SMS code at a prompt or from
// standard input.
extension BrowserPageOptions {
    /// The phone provider of `auth`, showing its page as these options say.
    func phoneProvider(auth: Auth) -> PhoneAuthProvider {
        let provider = PhoneAuthProvider.provider(auth: auth)
        provider.verificationPort = port
        provider.timeout = .seconds(browserTimeout)
        provider.browser = noBrowser ? .none : .system
        return provider
    }

    /// The credential of `number`: the app verified on the page (its address on standard error), the code sent, then read.
    func phoneCredential(_ number: String, auth: Auth, multiFactorSession: MultiFactorSession? = nil) async throws -> PhoneAuthCredential {
        let provider = phoneProvider(auth: auth)
        let opening = !noBrowser
        let verificationID = try await provider.verifyPhoneNumber(number, uiDelegate: nil, multiFactorSession: multiFactorSession) { url in
            announcePhonePage(url, opening: opening)
        }
        return provider.credential(withVerificationID: verificationID, verificationCode: try readSMSCode(sentTo: number))
    }

    /// The assertion of an SMS second factor of a sign-in: its page, the code sent to the factor's number, then read.
    func phoneAssertion(for hint: PhoneMultiFactorInfo, resolver: MultiFactorResolver) async throws -> PhoneMultiFactorAssertion {
        let provider = phoneProvider(auth: resolver.auth)
        let opening = !noBrowser
        let verificationID = try await provider.verifyPhoneNumber(
            with: hint, uiDelegate: nil, multiFactorSession: resolver.session, announcing: { url in announcePhonePage(url, opening: opening) })
        let credential = provider.credential(withVerificationID: verificationID, verificationCode: try readSMSCode(sentTo: hint.phoneNumber))
        return PhoneMultiFactorGenerator.assertion(with: credential)
    }
}

/// Prints the verification page's address on standard error.
private func announcePhonePage(_ url: URL, opening: Bool) {
    announceURL(url, opening ? "verify in your browser to have the code sent; if none opens, open this URL:"
        : "open this URL in a browser to have the code sent:")
}

/// The SMS code: on a terminal, asked for with a prompt on standard error; piped in, the next line of standard input.
///
/// - Throws: `ValidationError` when standard input holds no further line.
func readSMSCode(sentTo number: String) throws -> String {
    let code: String?
    if isatty(STDIN_FILENO) == 1 {
        FileHandle.standardError.write(Data("Code from the SMS sent to \(number.escapedForTerminal): ".utf8))
        code = readLine(strippingNewline: true)
    } else {
        code = try PipedLines.shared.next("the code from the SMS")
    }
    let digits = (code ?? "").trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "")
    guard !digits.isEmpty else {
        throw ValidationError(
            "Give the code the SMS carried: at the prompt, or on the next line of standard input, for example: "
                + "printf '%s\\n' \"$CODE\" | keyring-auth … --phone \(number.escapedForTerminal)")
    }
    return digits
}
