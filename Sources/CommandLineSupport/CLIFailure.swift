/// The exit codes `keyring-auth` documents.
package enum ExitStatus: Int32 {
    case success = 0
    case failure = 1
    case invalidInput = 2
    case nothingStored = 3
    case keyringUnavailable = 4
    case backendUnavailable = 5
}

/// A failure told as one line naming the problem and the fix, with its exit code.
package struct CLIFailure: Error {
    package var status: ExitStatus
    package var message: String

    package init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}
