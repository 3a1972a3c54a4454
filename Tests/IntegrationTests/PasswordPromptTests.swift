import Foundation
import KeyringTestSupport
import Synchronization
import SystemSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal: a child given its terminal end as its standard streams sees a TTY; the test
/// types on the other end and reads what the terminal shows.
final class PseudoTerminal: Sendable {
    let terminalPath: String
    private let controller: Int32
    private let terminal: Int32
    private let shown = Shown()

    /// What the terminal has shown, appended by the reading thread.
    private final class Shown: Sendable {
        let data = Mutex(Data())
    }

    init() throws {
        // posix_openpt, unlockpt and ptsname as Linux implements them (Glibc's module leaves them out).
        controller = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        guard controller >= 0, ioctl(controller, Self.setLock, &unlock) == 0, ioctl(controller, Self.getNumber, &number) == 0 else {
            throw Subprocess.Failure(description: "no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        terminalPath = "/dev/pts/\(number)"
        // Held open until release, so that the terminal outlives the children started on it.
        terminal = open(terminalPath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { throw Subprocess.Failure(description: "cannot open \(terminalPath)") }
        // Read on a thread of its own (blocking), never on the cooperative pool; ends (and closes
        // the controller) once every terminal end is closed: ours at release, the children's at exit.
        let controller = controller
        let shown = shown
        try OwnThread.detach(name: "pty-reader") {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(controller, &buffer, buffer.count)
                if count <= 0 { break }
                shown.data.withLock { $0.append(contentsOf: buffer[..<count]) }
            }
            close(controller)
        }
    }

    deinit { close(terminal) }

    /// `TIOCSPTLCK` and `TIOCGPTN` from <asm-generic/ioctls.h> (function-like macros, not imported).
    private static let setLock: UInt = 0x4004_5431
    private static let getNumber: UInt = 0x8004_5430

    /// Everything the terminal has shown so far.
    var output: String { String(decoding: shown.data.withLock { $0 }, as: UTF8.self) }

    /// Types `text` as a person at the keyboard would.
    func type(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { write(controller, $0.baseAddress, $0.count - 1) }
    }

    /// Waits (a bounded poll of what is shown) until the terminal shows `text`.
    func waitForOutput(containing text: String, within limit: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + limit
        while !output.contains(text) {
            guard ContinuousClock.now < deadline else {
                throw Subprocess.Failure(description: "the terminal did not show \(text.debugDescription) within \(limit): \(output.debugDescription)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether the terminal echoes what is typed, as its settings say now.
    func echoes() throws -> Bool {
        var settings = termios()
        guard tcgetattr(terminal, &settings) == 0 else { throw Subprocess.Failure(description: "tcgetattr failed") }
        return settings.c_lflag & tcflag_t(ECHO) != 0
    }
}

extension KeyringTests {
    /// `sign-in --password-stdin` on a terminal: a prompt, no echo, the terminal restored.
    @Suite struct PasswordPrompt {
        let cli: CLIProgram
        init() throws { cli = try CLIProgram() }

        private func signIn(on terminal: PseudoTerminal, emulator: String) throws -> ChildProcess {
            let id = UUID().uuidString.prefix(8)
            let device = URL(fileURLWithPath: terminal.terminalPath)
            return try ChildProcess(
                [
                    cli.program, "sign-in", "--email", "tty-\(id)@example.com", "--password-stdin", "--create", "--store", "memory",
                    "--api-key", "AIza-tty-\(id)", "--app-id", "1:42:linux:tty-\(id)", "--emulator", emulator,
                ],
                stdin: device, stdout: device, stderr: device)
        }

        @Test func thePasswordIsPromptedForAndNotEchoed() async throws {
            let emulator = try await startQuietEmulator()
            let terminal = try PseudoTerminal()
            #expect(try terminal.echoes())
            let child = try signIn(on: terminal, emulator: "\(try #require(emulator.address))")
            try await terminal.waitForOutput(containing: "Password: ")
            #expect(try !terminal.echoes(), "echo is off while the password is typed")
            terminal.type("tty s3cret\n")
            #expect(await child.exitStatus() == 0, "\(terminal.output)")
            try await terminal.waitForOutput(containing: "Signed in")
            #expect(!terminal.output.contains("s3cret"), "\(terminal.output.debugDescription)")
            #expect(try terminal.echoes(), "the terminal is restored")
            let account = try #require(emulator.accounts.first)
            #expect(account.email?.hasPrefix("tty-") == true)
            await emulator.stop()
        }

        @Test func anInterruptAtThePromptRestoresTheTerminal() async throws {
            let terminal = try PseudoTerminal()
            let child = try signIn(on: terminal, emulator: "127.0.0.1:9")
            try await terminal.waitForOutput(containing: "Password: ")
            #expect(try !terminal.echoes())
            child.send(SIGINT)
            #expect(await child.exitStatus() == 128 + SIGINT)
            #expect(try terminal.echoes(), "the terminal is restored")
        }
    }
}
