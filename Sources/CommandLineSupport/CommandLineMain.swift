import ArgumentParser
import Foundation
import SystemSupport

/// Runs the command line of `Root` as `keyring-auth` runs every command: each failure as one line on standard
/// error (`keyring-auth: MESSAGE`) and an exit code from ``ExitStatus``; usage errors exit 2. `beforeRun` runs
/// once the arguments are parsed, before the command, with the command parsed; what it throws is reported as the
/// command's failures are.
package func runCommandLine<Root: ParsableCommand>(
    _ root: Root.Type, beforeRun: (any ParsableCommand) throws -> Void = { _ in }
) async -> Never {
    if let position = firstArgumentNotInUTF8() {
        printError("argument \(position) is not valid UTF-8; pass every argument as UTF-8 text (check the locale or the script's encoding).")
        exit(ExitStatus.invalidInput.rawValue)
    }
    do {
        var command = try Root.parseAsRoot()
        try beforeRun(command)
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
        exit(ExitStatus.success.rawValue)
    } catch let failure as CLIFailure {
        printError(failure.message)
        exit(failure.status.rawValue)
    } catch {
        let code = Root.exitCode(for: error)
        if code == .success {
            // --help, --version, completion scripts.
            print(Root.fullMessage(for: error))
            exit(0)
        }
        // Usage errors: argument-parser's one-line message, our exit code for invalid input.
        let message = Root.message(for: error)
        if !message.isEmpty { printError(message.replacingOccurrences(of: "\n", with: " ")) }
        exit(code == .validationFailure ? ExitStatus.invalidInput.rawValue : code.rawValue)
    }
}

/// Writes `keyring-auth: MESSAGE` on standard error as one line; the message is escaped
/// (``Swift/String/escapedForTerminal``), since errors may echo stored data.
package func printError(_ message: String) {
    FileHandle.standardError.write(Data("keyring-auth: \(message.escapedForTerminal)\n".utf8))
}

/// Writes a line to standard output at once (`print` buffers when output is not a terminal).
package func printNow(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The position (1 for the first argument) of the first command-line argument whose bytes are not
/// valid UTF-8, or `nil`. Swift would turn such bytes into U+FFFD and name something else.
func firstArgumentNotInUTF8() -> Int? {
    for index in 1..<Int(CommandLine.argc) {
        guard let argument = CommandLine.unsafeArgv[index] else { continue }
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: strlen(argument))
        if String(validating: bytes, as: UTF8.self) == nil { return index }
    }
    return nil
}
