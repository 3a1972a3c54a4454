import KeyringAuthCommands

// `keyring-auth` as `swift build` and `swift run` make it; its commands are KeyringAuthCommands. Installed, the same
// commands are keyring-auth-multicall's.
await KeyringAuthCLI.runAsProgram()
