import KeyringAuthBroker
import KeyringAuthCommands
import KeyringAuthEmulatorServer

// The installed programs in one executable, with one copy of the Swift runtime: installed as bin/keyring-auth, with
// bin/keyring-auth-broker and bin/keyring-auth-emulator as links to it, it is the program named by the last part of the
// path it was started by (the activation file and the systemd unit start bin/keyring-auth-broker; `keyring-auth
// emulator` and `demo` start the keyring-auth-emulator beside keyring-auth). Any other name is keyring-auth.
switch ProgramName(startedAs: CommandLine.arguments.first ?? "") {
case .broker:
    // Before any suspension: the broker runs GLib's main loop on the main thread, as its own executable does.
    BrokerCommand.runAsProgram()
case .emulator:
    await EmulatorServer.runAsProgram()
case .cli:
    await KeyringAuthCLI.runAsProgram()
}
