import ArgumentParser
import Foundation

/// The password for `sign-in --password-stdin`. Piped in: the first line of standard input (the next
/// one may hold an authenticator's code). On a terminal: a `Password: ` prompt on standard error, one line read
/// with echo off, the terminal restored afterwards (also when interrupted), and a line break.
///
/// - Throws: `ValidationError` when no password was given.
func readPassword() throws -> String {
    var password: String
    if isatty(STDIN_FILENO) == 1 {
        password = readPasswordFromTerminal()
    } else {
        password = try PipedLines.shared.next("the password") ?? ""
    }
    if password.hasSuffix("\r") { password.removeLast() }
    guard !password.isEmpty else {
        throw ValidationError("No password on standard input; pipe it in: printf %s \"$PASSWORD\" | keyring-auth sign-in …, or type it at the prompt")
    }
    return password
}

/// The terminal settings to put back, for the signal handler (which cannot capture context).
/// Written before the handlers are installed and read only by them and by the restoring code.
nonisolated(unsafe) private var savedTerminal = termios()

/// The signals after which the terminal is restored before the process ends as the signal says.
private let restoringSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

/// Reads one line from the terminal on standard input with echo off.
private func readPasswordFromTerminal() -> String {
    SecretInput.protectProcess()
    let echoOff = tcgetattr(STDIN_FILENO, &savedTerminal) == 0
    var previousHandlers: [sighandler_t?] = []
    if echoOff {
        previousHandlers = restoringSignals.map { signal($0, restoreTerminalAndResignal) }
        var quiet = savedTerminal
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
    }
    // Echo is off before the prompt shows: whatever is typed after it is never echoed.
    FileHandle.standardError.write(Data("Password: ".utf8))
    defer {
        if echoOff {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedTerminal)
            for (signalNumber, handler) in zip(restoringSignals, previousHandlers) { signal(signalNumber, handler) }
        }
        // The Enter key's line break was not echoed.
        FileHandle.standardError.write(Data("\n".utf8))
    }
    return readLine(strippingNewline: true) ?? ""
}

/// Puts the terminal back as it was and ends the process by the same signal.
private func restoreTerminalAndResignal(_ signalNumber: Int32) {
    tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
}
