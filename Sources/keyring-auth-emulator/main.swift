import KeyringAuthEmulatorServer

// `keyring-auth-emulator` as `swift build` and `swift run` make it; the server is KeyringAuthEmulatorServer. Installed,
// the same server is keyring-auth-multicall's, started by that name.
await EmulatorServer.runAsProgram()
