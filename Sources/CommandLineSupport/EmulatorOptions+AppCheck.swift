import Foundation

#if canImport(Glibc)
import Glibc
#endif

// The emulator's App Check debug tokens: secrets, so never taken from the command line (which other users' processes read
// in /proc), but from the environment and a file.
extension EmulatorOptions {
    /// The variable holding one debug token, the one Firebase's C++ SDK reads for an app's own.
    package static let debugTokenVariable = "APP_CHECK_DEBUG_TOKEN"
    /// The largest `--app-check-debug-tokens-file` read.
    package static let maximumDebugTokensFileBytes = 64 * 1024
    /// The longest debug token: `AuthEmulator.AppCheckSettings.maximumDebugTokenBytes` (a test keeps them equal).
    package static let maximumDebugTokenBytes = 1024

    /// Whether `--app-check ENFORCE` was given.
    package var enforcesAppCheck: Bool { appCheck?.uppercased() == "ENFORCE" }

    /// The debug tokens to register: ``debugTokenVariable``'s, and each line of `--app-check-debug-tokens-file` (blank
    /// lines and lines beginning with `#` left out), each trimmed of spaces.
    ///
    /// - Throws: ``CLIFailure`` (invalid input) for a file that cannot be read, is not a regular file or is over
    ///   ``maximumDebugTokensFileBytes``, and for a token over ``maximumDebugTokenBytes`` or holding a control character,
    ///   named by its line, never shown.
    package func appCheckDebugTokens(environment: [String: String]) throws(CLIFailure) -> Set<String> {
        var tokens: Set<String> = []
        if let value = environment[Self.debugTokenVariable] {
            let token = value.trimmingCharacters(in: .whitespaces)
            if !token.isEmpty { tokens.insert(try Self.checked(token, from: Self.debugTokenVariable)) }
        }
        guard let appCheckDebugTokensFile else { return tokens }
        let text = try Self.read(appCheckDebugTokensFile)
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let token = line.trimmingCharacters(in: .whitespaces)
            guard !token.isEmpty, !token.hasPrefix("#") else { continue }
            tokens.insert(try Self.checked(token, from: "line \(index + 1) of \(appCheckDebugTokensFile)"))
        }
        return tokens
    }

    private static func checked(_ token: String, from place: String) throws(CLIFailure) -> String {
        guard token.utf8.count <= maximumDebugTokenBytes, !token.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw CLIFailure(
                .invalidInput, "The App Check debug token of \(place) is not one: over \(maximumDebugTokenBytes) bytes, or with a control character.")
        }
        return token
    }

    /// The file's text: a regular file (a FIFO is refused without waiting on it) of UTF-8, at most
    /// ``maximumDebugTokensFileBytes``.
    private static func read(_ path: String) throws(CLIFailure) -> String {
        let named = String(reflecting: path)
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CLIFailure(.invalidInput, "Cannot read the App Check debug tokens file \(named): \(String(cString: strerror(errno))).")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw CLIFailure(.invalidInput, "The App Check debug tokens file \(named) is not a regular file.")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        let data: Data
        do {
            data = try handle.read(upToCount: maximumDebugTokensFileBytes + 1) ?? Data()
        } catch {
            throw CLIFailure(.invalidInput, "Cannot read the App Check debug tokens file \(named): \(error.localizedDescription)")
        }
        guard data.count <= maximumDebugTokensFileBytes else {
            throw CLIFailure(.invalidInput, "The App Check debug tokens file \(named) is over \(maximumDebugTokensFileBytes / 1024) KiB.")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIFailure(.invalidInput, "The App Check debug tokens file \(named) is not UTF-8 text.")
        }
        return text
    }
}
