import KeyringAuthBroker

// `keyring-auth-broker` as `swift build` and `swift run` make it; the broker is KeyringAuthBroker. Installed, the same
// broker is keyring-auth-multicall's, started by that name.
BrokerCommand.runAsProgram()
