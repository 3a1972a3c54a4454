/// Which of the installed programs this process is, by the name it was started with.
enum ProgramName: Equatable {
    /// `keyring-auth`, under that name or any other.
    case cli
    /// `keyring-auth-broker`.
    case broker
    /// `keyring-auth-emulator`.
    case emulator

    /// The program named by the last part of `path` (a process's `argv[0]`).
    init(startedAs path: String) {
        switch path.split(separator: "/").last {
        case "keyring-auth-broker": self = .broker
        case "keyring-auth-emulator": self = .emulator
        default: self = .cli
        }
    }
}
